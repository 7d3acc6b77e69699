#include <adjoint/ad.hpp>
void f(double* out, const double* x, double a, int n) {
#pragma omp parallel for firstprivate(a)  // error: firstprivate 'a' is written in the loop, which is not supported; copy it into a local declared in the loop
  for (int i = 0; i < n; i++) {
    a = a * 0.5 + x[i];
    out[i] = a;
  }
}
void request() { auto g = adjoint::gradient(f); (void)g; }
