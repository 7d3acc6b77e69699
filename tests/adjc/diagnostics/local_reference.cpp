#include <adjoint/ad.hpp>
double f(double* x) {
  double& r = x[0];  // error: local references are not supported
  return r * r;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
