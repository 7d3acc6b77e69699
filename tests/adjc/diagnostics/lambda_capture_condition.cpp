#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  auto positive = [&](int i) { return x[i] > 0; };
  double s = 0;
  for (int i = 0; i < n; i++)
    if (positive(i)) s += x[i] * x[i];  // error: a lambda with captures called in a condition or a loop header is not supported; call it before and keep its result in a local
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
