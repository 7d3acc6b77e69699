#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  double s = x[0];
  double before = s * s;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];  // error: the reverse sweep reads the value reduction variable 's' had before the OpenMP parallel loop; copy it into another local before the loop and read that
  return s + before;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
