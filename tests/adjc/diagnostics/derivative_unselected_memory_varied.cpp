// Forward mode differentiates the result: an output array that depends on the parameter has no tangent memory.
#include <adjoint/ad.hpp>
double f(double x, double* out) {
  out[0] = x * 2;
  return x * x;
}
void request() {
  auto d = adjoint::derivative(f, "x");  // error: parameter 'out' of 'f' receives values that depend on 'x'; forward mode differentiates the result only, and has no tangent memory for 'out'
  (void)d;
}
