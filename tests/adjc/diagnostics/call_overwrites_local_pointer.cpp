#include <adjoint/ad.hpp>
// A local pointer passed to a call reads its region: sq's reverse reads y[1] through q.
double sq(const double* p) { return p[0] * p[0]; }
void fill(double* o, double v) {
  o[0] = v;
  o[1] = v;
}
double f(double* y, const double* x) {
  const double* q = y + 1;
  double s = sq(q);
  fill(y, x[0]);  // error: 'y' is overwritten by the call to 'fill' but the derivative needs its earlier value
  return s + y[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
