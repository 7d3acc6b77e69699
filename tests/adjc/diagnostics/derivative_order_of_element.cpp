// A derivative of order above 1 with respect to an array element is not supported yet.
#include <adjoint/ad.hpp>
double f(const double a[3]) { return a[0] * a[1] * a[2]; }
void request() {
  auto d = adjoint::derivative<2>(f, "a[1]");  // error: a derivative of order 2 with respect to an array element ('a[1]') is not supported yet
  (void)d;
}
