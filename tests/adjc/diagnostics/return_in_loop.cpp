#include <adjoint/ad.hpp>
void f(double* y, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (x[i] > 1) return;  // error: return inside an OpenMP parallel loop is not supported
    y[i] = x[i] * x[i];
  }
}
void request() { auto g = adjoint::gradient(f, "y, x"); (void)g; }
