#include <adjoint/ad.hpp>
double f(double x) {
  double v[2] = {x, x * x};  // error: initialising local array 'v' where it is declared is not supported; declare it, then assign its elements
  return v[0] * v[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
