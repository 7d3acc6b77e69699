// Forward mode differentiates a function's floating result; a void function has none.
#include <adjoint/ad.hpp>
void f(double x, double* y) { *y = x * x; }
void request() {
  auto d = adjoint::derivative(f, "x");  // error: 'f' does not return a floating value; forward mode differentiates a function's result
  (void)d;
}
