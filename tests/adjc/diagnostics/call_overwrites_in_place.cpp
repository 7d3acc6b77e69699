#include <adjoint/ad.hpp>
// The update's tape restores y[0] before its reverse reads it, but not y[1], which fill overwrites.
void fill(double* o, double v) {
  o[0] = v;
  o[1] = v;
}
void f(double* y, const double* x) {
  y[0] = y[0] * y[1];
  fill(y + 1, x[0]);  // error: 'y' is overwritten by the call to 'fill' but the derivative needs its earlier value
}
void request() { auto g = adjoint::gradient(f); (void)g; }
