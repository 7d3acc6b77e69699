#include <adjoint/ad.hpp>
double* bump(double* x, int n) {
  x[0] += 1;
  return x + n;
}
double f(double* x) {
  return *bump(x, 1) * x[2];  // error: the pointer 'bump' returns is not supported: it writes memory (only its own variables may change)
}
void request() { auto g = adjoint::gradient(f); (void)g; }
