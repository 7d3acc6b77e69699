// Clad's namespace for custom derivatives: adjc would not read it, so it must not pass it over.
#include <adjoint/ad.hpp>
double sq(double x) { return x * x; }
namespace clad::custom_derivatives {
void sq_pullback(double x, double d_y, double* d_x) { *d_x += 100 * x * d_y; }  // error: custom pullback 'clad::custom_derivatives::sq_pullback' is not in namespace adjoint::custom_derivatives, the only one adjc reads; move it there (namespace adjoint::custom_derivatives { ... })
}
double f(double x) { return sq(x) + x; }
void request() { auto g = adjoint::gradient(f); (void)g; }
