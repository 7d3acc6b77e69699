#include <adjoint/ad.hpp>
double f(double* x, int n) {
  double* p = x;  // error: pointer 'p', which is given a 'new' later, must be declared 'nullptr' (docs/adjc.md, "Heap arrays")
  p = new double[n];
  for (int i = 0; i < n; i++) p[i] = x[i] * x[i];
  double s = p[0];
  delete[] p;
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
