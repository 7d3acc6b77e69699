#include <adjoint/ad.hpp>
#include <cstdlib>
// malloc's byte count must count whole elements of the type it is cast to.
double f(double x, int n) {
  double* p = (double*)malloc(n * 4);  // error: 'malloc' of 'p' with this byte count is not supported: adjc allocates whole 'double' elements; write it k * sizeof(double) (docs/adjc.md, "Heap arrays")
  p[0] = x;
  double r = p[0] * x;
  free(p);
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
