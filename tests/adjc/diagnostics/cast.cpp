#include <adjoint/ad.hpp>
double f(double x) {
  int k = (int)x;  // error: non-differentiable cast of an active floating value
  return x * k;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
