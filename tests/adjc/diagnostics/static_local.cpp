#include <adjoint/ad.hpp>
double f(double x) {
  static double calls = 0;  // error: static local variables are not supported
  return x * calls;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
