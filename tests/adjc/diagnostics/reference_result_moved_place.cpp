#include <adjoint/ad.hpp>
double& advance(double* x) {
  x += 1;
  return x[0];
}
double f(double* a) {
  double& r = advance(a);  // error: the reference 'advance' returns is used as a place here (written, addressed or bound to a reference); adjc differentiates it as returning the value: use the value
  r *= 2;
  return a[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
