#include <adjoint/ad.hpp>
void f(double* out, const double* x, int n) {
  double row[2];
#pragma omp parallel for private(row)  // error: private 'row' is not supported; only local variables and parameters of numbers (not references, not passed by address)
  for (int i = 0; i < n; i++) {
    row[0] = x[i];
    row[1] = x[i] * x[i];
    out[i] = row[0] * row[1];
  }
}
void request() { auto g = adjoint::gradient(f); (void)g; }
