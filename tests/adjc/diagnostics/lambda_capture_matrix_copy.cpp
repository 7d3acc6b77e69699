#include <adjoint/ad.hpp>
double f(double x) {
  double m[2][2] = {{x, 2 * x}, {3 * x, x * x}};
  auto corner = [m] { return m[0][1] * m[1][0]; };  // error: the lambda captures 'm' (of type 'double[2][2]') by copy, which is not supported; capture it by reference ([&m])
  return corner();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
