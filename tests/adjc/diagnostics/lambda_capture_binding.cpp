#include <adjoint/ad.hpp>
struct Point { double x, y; };
double f(double a, double b) {
  Point p{a, b};
  auto [x, y] = p;
  auto scaled = [&](double t) { return x * y * t; };  // error: a lambda capturing structured binding 'x' is not supported; copy it into a local
  return scaled(a);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
