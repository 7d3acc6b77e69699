#include <adjoint/ad.hpp>
struct Value { double v; };
struct Hidden : private Value {
  double w;
  double product() const { return v * w; }
};
double f(const Hidden* h, double x) {  // error: parameter 'h' has type 'const Hidden *': non-public base class 'Value' of 'Hidden'
  return h->product() * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
