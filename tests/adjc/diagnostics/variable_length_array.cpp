#include <adjoint/ad.hpp>
// A variable-length array (a GNU extension in C++; its output did not compile).
double f(double a, double b, int n) {
  double t[n];  // error: variable-length array 't' is not supported
  t[0] = a;
  return t[0] * b;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
