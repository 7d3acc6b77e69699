#include <adjoint/ad.hpp>
double sq(double v) { return v * v; }
void f(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = sq(x[i]);  // error: calls of differentiated functions inside an OpenMP parallel loop are not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
