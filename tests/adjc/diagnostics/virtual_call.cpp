#include <adjoint/ad.hpp>
struct Module {
  double w;
  virtual double forward(double x) const { return w * x; }
};
double f(const Module& m, double x) {
  return m.forward(x);  // error: virtual calls are not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
