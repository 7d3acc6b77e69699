#include <adjoint/ad.hpp>
double f(double x, int n) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    double* p = new double[n];  // error: 'new' inside a loop ('p') is not supported; allocate before the loop and reuse the array (docs/adjc.md, "Heap arrays")
    for (int i = 0; i < n; i++) p[i] = x * (i + k);
    for (int i = 0; i < n; i++) s += p[i] * p[i];
    delete[] p;
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
