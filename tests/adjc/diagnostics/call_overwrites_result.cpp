#include <adjoint/ad.hpp>
#include <cmath>
// expo's reverse reads exp(x) back from *o instead of calling exp again, so a later call must not
// overwrite *o (behind a pointer parameter, whose extent adjc cannot tape whole).
void expo(double* o, double x) { *o = std::exp(x); }
void set(double* o, double v) { *o = v; }
double f(double* u, double x, double y) {
  expo(u, x);
  double s = *u + y;
  set(u, y);  // error: 'u' is overwritten by the call to 'set' but the derivative needs its earlier value
  return s + *u;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
