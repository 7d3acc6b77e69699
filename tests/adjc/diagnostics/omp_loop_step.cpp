#include <adjoint/ad.hpp>
void f(double* out, const double* x, int n, int k) {
#pragma omp parallel for
  for (int i = 0; i < n; i += k)  // error: OpenMP parallel loops must have the form 'for (int i = start; i < end; i += step)'
    out[i] = x[i] * x[i];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
