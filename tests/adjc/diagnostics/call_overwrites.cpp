#include <adjoint/ad.hpp>
void fill(double* out, const double* x, int n) {
  for (int i = 0; i < n; i++) out[i] = x[i] * 2;
}
double f(double* a, const double* x, int n) {
  double s = a[0] * a[0];
  fill(a, x, n);  // error: 'a' is overwritten by the call to 'fill' but the derivative needs its earlier value
  return s + a[1];
}
void request() { auto g = adjoint::gradient(f, "a,x"); (void)g; }
