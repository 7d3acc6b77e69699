#include <adjoint/ad.hpp>
#include <cstdlib>
double f(double x) {
  double* p = (double*)malloc(sizeof(double));
  double* q = (double*)malloc(sizeof(double));
  p[0] = x;
  q[0] = x * x;
  p = (double*)realloc(q, 2 * sizeof(double));  // error: 'realloc' of another pointer into 'p' is not supported; reallocate the pointer it is assigned to
  double r = p[0] * x;
  free(p);
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
