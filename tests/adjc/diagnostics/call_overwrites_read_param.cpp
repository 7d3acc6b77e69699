#include <adjoint/ad.hpp>
// sq_into's reverse reads *a (the product's derivative), so a later call must not overwrite it.
void sq_into(double* o, const double* a) { *o = *a * *a; }
void set(double* o, double v) { *o = v; }
double f(double* a, double x) {
  double o = 0;
  sq_into(&o, a);
  set(a, x);  // error: 'a' is overwritten by the call to 'set' but the derivative needs its earlier value
  return o + *a;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
