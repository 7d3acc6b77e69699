#include <adjoint/ad.hpp>
double total = 0;
double f(double x) {
  return x * total;  // error: non-const global variable 'total' cannot be differentiated
}
void request() { auto g = adjoint::gradient(f); (void)g; }
