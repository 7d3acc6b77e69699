#include <adjoint/ad.hpp>
void f(double* out, const double* x, int n) {
#pragma omp parallel for collapse(1)  // error: only '#pragma omp parallel for' (optionally schedule(static)) is supported
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
