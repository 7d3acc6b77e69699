// Vector mode differentiates a function's result; this one also writes an array.
#include <adjoint/ad.hpp>
double f(double x, double* y) {
  y[0] = x * x;
  return x;
}
void request() {
  auto d = adjoint::derivative<adjoint::vector_mode>(f, "x");  // error: vector mode differentiates the result of 'f' only, which writes parameter 'y'; request adjoint::jacobian for its outputs
  (void)d;
}
