#include <adjoint/ad.hpp>
struct Point { double x, y; };
double f(double a, double b) {
  Point p{a, b};
  if (auto [x, y] = p; x > y)  // error: a structured binding in an 'if' init-statement is not supported; declare it before
    return x * y;
  return a;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
