#include <adjoint/ad.hpp>
double f(double x, int n) {
  int k = 0;
  int m = n ?: (k = 2);  // error: a call, assignment or '++'/'--' inside the GNU conditional 'a ?: b' is not supported; write 'a ? a : b'
  return x * m * k;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
