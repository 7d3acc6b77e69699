#include <adjoint/ad.hpp>
double total = 0;
double f(double x) {
  total += x;
  return x * total;  // error: non-const global variable 'total' is not supported in a function that writes it or calls a function adjc does not differentiate
}
void request() { auto g = adjoint::gradient(f); (void)g; }
