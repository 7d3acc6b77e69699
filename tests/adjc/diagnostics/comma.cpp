#include <adjoint/ad.hpp>
double f(double x) {
  double y = (x, x * 2);  // error: the comma operator is not supported inside expressions
  return y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
