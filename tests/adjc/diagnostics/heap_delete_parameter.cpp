#include <adjoint/ad.hpp>
double f(double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  delete[] x;  // error: 'delete' of parameter 'x' is not supported: the reverse sweep reads its memory after the function returns; free it in the caller (docs/adjc.md, "Heap arrays")
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
