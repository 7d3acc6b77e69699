#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double t = 0;
#pragma omp parallel for lastprivate(t)  // error: OpenMP clause 'lastprivate' is not supported
  for (int i = 0; i < n; i++) t = x[i] * x[i];
  return t;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
