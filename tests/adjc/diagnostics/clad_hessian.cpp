// clad::hessian of every parameter (no list) when one is an array: Clad asks for its range too, and
// so does adjc, naming the parameter.
#include "clad/Differentiator/Differentiator.h"
double f(double x, const double* a) { return x * a[0] * a[1]; }
int main() {
  auto h = clad::hessian(f);  // error: a Hessian is taken with respect to floating scalar parameters ('x, y') and ranges of array parameters from 0 ('a[0:n]'; adjoint::hessian_vector: one array, 'a'); 'a' is none of those
  (void)h;
}
