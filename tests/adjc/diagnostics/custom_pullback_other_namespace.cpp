// A library's own namespace for custom derivatives: adjc does not read it, so it must not pass it over.
#include <adjoint/ad.hpp>
double sq(double x) { return x * x; }
namespace mylib::custom_derivatives {
void sq_pullback(double x, double d_y, double* d_x) { *d_x += 100 * x * d_y; }  // error: custom pullback 'mylib::custom_derivatives::sq_pullback' is not in namespace adjoint::custom_derivatives (nor Clad's clad::custom_derivatives), the ones adjc reads; move it there (namespace adjoint::custom_derivatives { ... })
}
double f(double x) { return sq(x) + x; }
void request() { auto g = adjoint::gradient(f); (void)g; }
