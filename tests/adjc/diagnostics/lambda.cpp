#include <adjoint/ad.hpp>
double f(double x) {
  auto square = [](double v) { return v * v; };  // error: lambdas are not supported ('square'); write it as a named function and call that
  return square(x) + x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
