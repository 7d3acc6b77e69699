#include <adjoint/ad.hpp>
void f(double* out, const double* x, int n) {
#pragma omp parallel for collapse(1)  // error: OpenMP clause 'collapse' is not supported; a parallel loop may have schedule(static), shared, private, firstprivate, reduction(+: s), default and num_threads
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
