#include <adjoint/ad.hpp>
struct Point { double x, y; };
double f(double a, double b) {
  Point p{a, b};
  switch (auto [x, y] = p; int(x)) {  // error: a structured binding in a 'switch' init-statement is not supported
    case 0: return y * b;
    default: return a;
  }
}
void request() { auto g = adjoint::gradient(f); (void)g; }
