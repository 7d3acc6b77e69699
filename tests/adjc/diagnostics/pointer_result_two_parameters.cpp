#include <adjoint/ad.hpp>
double* pick(double* a, double* b, int k) { return k > 0 ? a + k : b; }
double f(double* a, double* b) {
  double* z = pick(a, b, 1);  // error: the pointer 'pick' returns is not supported: it returns a pointer derived from 'a' or 'b', not from one parameter
  return *z * 2;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
