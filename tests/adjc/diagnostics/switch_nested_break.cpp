#include <adjoint/ad.hpp>
double f(double x, int k) {
  double r = x;
  switch (k) {
    case 0:
      if (x > 0) break;  // error: 'break' out of a switch from inside a statement of its case is not supported
      r = r * x;
      break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
