#include <adjoint/ad.hpp>
double f(double x, int n) {
  double* p = new double[n];
  p[0] = x;
  double r = p[0] * x;
  delete[] p;
  p = new double[n];  // error: a second 'new' into 'p' is not supported; give each allocation a pointer of its own (docs/adjc.md, "Heap arrays")
  p[0] = r;
  r = p[0] * r;
  delete[] p;
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
