#include <adjoint/ad.hpp>
#include <algorithm>
double f(double* y, const double* x, int n) {
  double* p = y;
  std::fill(p++, y + n, x[0]);  // error: an argument of std::fill with side effects is not supported; compute it in a statement before
  return y[0] * x[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
