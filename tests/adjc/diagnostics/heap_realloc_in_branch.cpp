#include <adjoint/ad.hpp>
#include <cstdlib>
// realloc in a nested block: the pointer after the block could be either array.
double f(double x, int n) {
  double* p = (double*)malloc(2 * sizeof(double));
  p[0] = x;
  if (n > 2) {
    p = (double*)realloc(p, n * sizeof(double));  // error: 'realloc' into 'p' is supported only as a statement 'p = (T*)realloc(p, k * sizeof(T));' of the block that declares the heap array p
    p[2] = x * x;
  }
  double r = p[0] * x;
  free(p);
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
