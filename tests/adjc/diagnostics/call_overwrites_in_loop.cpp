#include <adjoint/ad.hpp>
// h's reverse reads o[0] as h left it (o[1] = o[0] * x), which the next iteration's call
// overwrites: each iteration's reverse would read the last iteration's o[0].
void h(double* o, double x) {
  o[0] = x * x + o[1];
  o[1] = o[0] * x;
}
double f(double* o, const double* x, int n) {
  for (int i = 0; i < n; i++) h(o, x[i]);  // error: 'o' is overwritten by the call to 'h' but the derivative needs its earlier value
  return o[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
