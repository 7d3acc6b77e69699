#include <adjoint/ad.hpp>
double f(double x) {
  double v[2] = {x, x * x};  // error: initialiser lists and constructors are not supported
  return v[0] * v[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
