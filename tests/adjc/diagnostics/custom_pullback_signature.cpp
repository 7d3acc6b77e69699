#include <adjoint/ad.hpp>
// A custom pullback of the callee's name that the call adjc makes cannot take (its adjoint is a
// float* where adjc passes a double*): reported, rather than passed over for the body.
double clip(double x) { return x > 1 ? 1 : x; }
namespace adjoint::custom_derivatives {
void clip_pullback(double x, double d_result, float* d_x);
}
double f(double x) {
  return clip(x) * x;  // error: does not take the arguments adjc passes for a call of 'clip'; expected 'void clip_pullback(double x, double d_result, double * d_x)'
}
void request() { auto g = adjoint::gradient(f); (void)g; }
