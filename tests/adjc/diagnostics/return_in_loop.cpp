#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] > 1) return x[i];  // error: return inside a loop is not supported
  return 0;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
