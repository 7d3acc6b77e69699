#include <adjoint/ad.hpp>
// Not an accessor (one `return` of an element or member): differentiated as returning the value,
// so its result may not be written.
double& larger(double* p, int k) {
  if (p[k] > p[0]) return p[k];
  return p[0];
}
double f(double* x) {
  larger(x, 1) = 3;  // error: the reference 'larger' returns is used as a place here (written, addressed or bound to a reference); adjc differentiates it as returning the value: use the value
  return x[0] * x[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
