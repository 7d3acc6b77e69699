// Forward mode differentiates with respect to one parameter: a list of two is refused.
#include <adjoint/ad.hpp>
double f(double x, double y) { return x * y; }
void request() {
  auto d = adjoint::derivative(f, "x, y");  // error: forward mode differentiates with respect to one parameter of 'f'; name one ('x', 'x[2]' or its position)
  (void)d;
}
