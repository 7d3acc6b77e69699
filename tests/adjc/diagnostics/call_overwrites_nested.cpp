#include <adjoint/ad.hpp>
// The summaries compose: outer's reverse reads *a because sq_into's does.
void sq_into(double* o, const double* a) { *o = *a * *a; }
void outer(double* o, const double* a) { sq_into(o, a); }
void set(double* o, double v) { *o = v; }
double f(double* a, double x) {
  double o = 0;
  outer(&o, a);
  set(a, x);  // error: 'a' is overwritten by the call to 'set' but the derivative needs its earlier value
  return o + *a;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
