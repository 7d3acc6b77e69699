#include <adjoint/ad.hpp>
double f(double x, int k) {
  double r = x;
  switch (k) {
    r = 2 * x;  // error: statements before the first case label are not supported
    case 0: r = r * x; break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
