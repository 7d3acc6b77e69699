#include <adjoint/ad.hpp>
#include <cstdlib>
double first(double* p) { return p[0]; }
double f(double x) {
  double r = x * first((double*)malloc(sizeof(double)));  // error: 'malloc' here is not supported; allocate into a local pointer as a statement of its own
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
