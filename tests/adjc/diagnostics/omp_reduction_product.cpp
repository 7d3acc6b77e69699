#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p)  // error: 'reduction(*: ...)' is not supported on an OpenMP parallel loop; only reduction(+: s) is
  for (int i = 0; i < n; i++) p *= x[i];
  return p;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
