#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += *x++;  // error: reassigning pointer parameter 'x' is not supported; use a local pointer
  return s * s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
