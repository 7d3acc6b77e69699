#include <adjoint/ad.hpp>
double f(double* out, const double* x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    s += x[i];
    out[i] = s * x[i];  // error: reduction variable 's' is read in the loop, which is not supported (each thread holds only its own part of the sum)
  }
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
