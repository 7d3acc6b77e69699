#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  int i = 0;
  double s = x[i++];  // error: '++'/'--' inside expressions is not supported
  return s * n;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
