#include <adjoint/ad.hpp>
double f(double x, int k) {
  double r = x;
  switch (k) {
    double t;  // error: declarations, and case labels nested in statements, before the first case label are not supported; declare the variables before the switch
    case 0: t = x; r = r * t; break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
