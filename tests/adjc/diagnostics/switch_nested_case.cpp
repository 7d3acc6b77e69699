#include <adjoint/ad.hpp>
double f(double x, int k) {
  double r = x;
  switch (k) {
    case 0:
      if (x > 0) {
        case 1:  // error: a case label inside an if, a loop or another statement in the switch is not supported; put the case labels in the switch's body
          r *= x;
      }
      break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
