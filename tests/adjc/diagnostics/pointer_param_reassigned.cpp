#include <adjoint/ad.hpp>
// A moved pointer parameter is a local pointer into its array; pointing it at another array inside
// a loop (not a statement of the block declaring it) would make one variable stand for two regions.
double f(const double* x, const double* y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += *x;
    x = y;  // error: local pointer 'x' must keep pointing into the same array here; give it another array only by a statement of the block that declares it
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "x, y"); (void)g; }
