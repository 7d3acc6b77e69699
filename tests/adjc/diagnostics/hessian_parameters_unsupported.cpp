// A Hessian's array ranges start at 0: a range from elsewhere is named, not guessed.
#include <adjoint/ad.hpp>
double f(double x, const double* a) { return x * a[0] * a[1]; }
void request() {
  auto h = adjoint::hessian(f, "x, a[1:3]");  // error: a Hessian is taken with respect to floating scalar parameters ('x, y') and ranges of array parameters from 0 ('a[0:n]'; adjoint::hessian_vector: one array, 'a'); 'a[1:3]' is none of those
  (void)h;
}
