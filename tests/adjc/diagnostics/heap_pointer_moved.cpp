#include <adjoint/ad.hpp>
double f(double x, int n) {
  double* p = new double[n];
  for (int i = 0; i < n; i++) p[i] = x * i;
  double s = 0;
  for (int i = 0; i < n; i++) s += *p++ * x;  // error: heap array pointer 'p' may only be given its one 'new'; declare a local pointer into it instead (double* q = p + k;)
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
