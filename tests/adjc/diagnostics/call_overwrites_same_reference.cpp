#include <adjoint/ad.hpp>
// Each iteration's call writes v[0] again, which an earlier iteration's reverse reads (v[0] * v[0]).
void scale_in_place(double& d) { d = 3 * d + 0.5; }
double f(double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    scale_in_place(v[0]);  // error: 'v' is overwritten by the call to 'scale_in_place' but the derivative needs its earlier value
    s += v[0] * v[0];
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "v"); (void)g; }
