#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double m = x[0];
#pragma omp parallel for reduction(max : m)  // error: 'reduction(max: ...)' is not supported on an OpenMP parallel loop; only reduction(+: s) is
  for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
