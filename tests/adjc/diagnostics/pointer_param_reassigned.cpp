#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += *x;
    x = x + 1;  // error: reassigning pointer parameter 'x' is not supported
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
