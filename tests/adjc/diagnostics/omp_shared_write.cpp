#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double t = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    t = x[i] * x[i];  // error: 't', declared outside the OpenMP parallel loop, is assigned in it (a race between its threads); declare it in the loop, or list it in private(t) or reduction(+: t)
  return t;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
