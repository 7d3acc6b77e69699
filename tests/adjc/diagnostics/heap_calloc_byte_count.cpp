#include <adjoint/ad.hpp>
#include <cstdlib>
// calloc's element size must be the size of the type it is cast to.
double f(double x, int n) {
  float* p = (float*)calloc(n, sizeof(double));  // error: 'calloc' of 'p' with this byte count is not supported: adjc allocates whole 'float' elements; write it calloc(k, sizeof(float))
  p[0] = float(x);
  double r = p[0] * x;
  free(p);
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
