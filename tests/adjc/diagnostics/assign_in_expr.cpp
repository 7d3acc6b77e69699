#include <adjoint/ad.hpp>
double f(double x) {
  double a, b;
  a = (b = x * 2) + 1;  // error: assignments inside expressions are not supported
  return a * b;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
