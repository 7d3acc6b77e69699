// A Hessian is taken with respect to scalars or one array range from 0, not a mix of them.
#include <adjoint/ad.hpp>
double f(double x, const double* a) { return x * a[0] * a[1]; }
void request() {
  auto h = adjoint::hessian(f, "x, a[0:2]");  // error: a Hessian is taken with respect to floating scalar parameters ('x, y') or a range of one array parameter from 0
  (void)h;
}
