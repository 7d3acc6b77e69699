#include <adjoint/ad.hpp>
// A pullback template is given the callee's template arguments (`<3>`), which a template of a type
// cannot take: reported, with the specialization adjc would call.
template <int N>
double power(double x) {
  double p = 1;
  for (int i = 0; i < N; i++) p *= x;
  return p;
}
namespace adjoint::custom_derivatives {
template <class T>
void power_pullback(T x, T d_result, T* d_x);
}
double f(double x) {
  return power<3>(x) + x;  // error: does not take the arguments adjc passes for a call of 'power'; expected 'void power_pullback<3>(double x, double d_result, double * d_x)'
}
void request() { auto g = adjoint::gradient(f); (void)g; }
