#include <adjoint/ad.hpp>
struct Scaled {
  double value;
  explicit Scaled(double v) : value(v * 2) {}
};
double f(double x) {
  Scaled s(x);  // error: initialising struct 's' this way is not supported
  return s.value * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
