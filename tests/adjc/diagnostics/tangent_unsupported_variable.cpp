// A heap array carrying a derivative: forward mode has no tangent memory for it yet.
#include <adjoint/ad.hpp>
double f(double x, int n) {
  double* p = new double[n];  // error: forward mode (adjoint::derivative) does not support a heap array that carries a derivative yet ('p')
  for (int i = 0; i < n; ++i) p[i] = x * i;
  double s = p[n - 1];
  delete[] p;
  return s;
}
void request() { auto d = adjoint::derivative(f, "x"); (void)d; }
