#include <adjoint/ad.hpp>
double f(double x, int k) {
  double r = x;
  switch (k) {
    case 0: r = r * x;  // error: a switch case that falls through into the next is not supported; end it with 'break'
    case 1: r = r * x; break;
    default: r = -x;
  }
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
