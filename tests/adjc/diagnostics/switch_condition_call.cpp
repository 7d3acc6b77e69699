#include <adjoint/ad.hpp>
int pick(int k) { return k % 3; }
double f(double x, int k) {
  double r = x;
  switch (pick(k)) {  // error: a switch condition that calls a function is not supported; store its value in a local first
    case 0: r = r * x; break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
