// A call forward mode cannot follow: a bodiless function with a custom pullback only.
#include <adjoint/ad.hpp>
double g(double x);
namespace adjoint::custom_derivatives {
void g_pullback(double x, double d_y, double* d_x) { *d_x += 2 * x * d_y; }
}  // namespace adjoint::custom_derivatives
double f(double x) { return g(x) * 3; }  // error: 'g' has no body adjc can differentiate and no custom pushforward; forward mode needs one to differentiate through this call: declare 'adjoint::custom_derivatives::g_pushforward'
void request() { auto d = adjoint::derivative(f, "x"); (void)d; }
