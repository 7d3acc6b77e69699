#include <adjoint/ad.hpp>
double f(double x) {
  double v[3] = {x, 2 * x, 3 * x};
  auto at = [&v](int i) { return v[i] * v[i]; };  // error: the lambda captures array 'v', which is not supported; capture a pointer to its first element instead (const double* p = v;)
  return at(0) + at(2);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
