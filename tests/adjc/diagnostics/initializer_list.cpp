#include <adjoint/ad.hpp>
double f(double x) {
  double v[2][2] = {{x, x * x}, {1, x}};  // error: nested initialiser lists are not supported; assign the elements
  return v[0][0] * v[1][1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
