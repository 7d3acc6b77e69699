#include <adjoint/ad.hpp>
#include <cstring>
// memset of part of an element.
double f(double x) {
  double a[3] = {x, x, x};
  memset(a, 0, 12);  // error: 'memset' of 'double' elements with this byte count is not supported; write it 'k * sizeof(double)'
  return a[0] * x + a[2];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
