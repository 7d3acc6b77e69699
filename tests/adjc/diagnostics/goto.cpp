#include <adjoint/ad.hpp>
double f(double x) {
  double y = x;
again:  // error: goto is not supported
  y = y * 0.5;
  if (y > 1) goto again;
  return y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
