#include <adjoint/ad.hpp>
double f(double x) {
  double a[2] = {x, 2 * x};
  double* q = a;
  double s = q[0] * q[1];
  delete[] q;  // error: 'delete' of 'q', which is not a heap array this function allocates, is not supported; free only what 'T* p = new T[n];' or 'T* p = (T*)malloc(n * sizeof(T));' allocated here (docs/adjc.md, "Heap arrays")
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
