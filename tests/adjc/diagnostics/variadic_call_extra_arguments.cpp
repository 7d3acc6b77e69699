#include <adjoint/ad.hpp>
// A C-variadic function that never reads its `...` is differentiated in its named parameters only;
// a call passing it more arguments has no derivative to call.
double scaled(double x, ...) { return 3 * x; }
double caller(double y) {
  return scaled(y) + scaled(y, 2.0);  // error: this call passes arguments to the '...' of 'scaled'
}
void request() { auto g = adjoint::derivative(caller, "y"); (void)g; }
