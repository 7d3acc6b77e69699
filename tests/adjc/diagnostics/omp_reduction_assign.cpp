#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s = s + x[i] * x[i];  // error: reduction variable 's' may only be updated by 's += ...' or 's -= ...' in the loop
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
