#include <adjoint/ad.hpp>
void f(double* out, const double* x, int n) {
#pragma omp parallel for schedule(dynamic, 4)  // error: 'schedule(dynamic)' is not supported on an OpenMP parallel loop; use schedule(static)
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
