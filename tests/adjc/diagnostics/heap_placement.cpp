#include <adjoint/ad.hpp>
#include <new>
double f(double x) {
  double storage[2];
  double* p = new (storage) double[2];  // error: placement 'new' into 'p' is not supported; allocate with 'new T[n]' (docs/adjc.md, "Heap arrays")
  p[0] = x;
  return p[0] * x;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
