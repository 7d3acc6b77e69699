#include <adjoint/ad.hpp>
double f(double x) {
  double* p = new double[2]{x, 2 * x};  // error: 'new double[n]{...}' with values ('p') is not supported; allocate with 'new double[n]()' and assign the elements (docs/adjc.md, "Heap arrays")
  double r = p[0] * p[1];
  delete[] p;
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
