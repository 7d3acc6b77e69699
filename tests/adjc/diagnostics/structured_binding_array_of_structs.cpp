#include <adjoint/ad.hpp>
struct Point { double x, y; };
double f(const Point& p, const Point& q) {
  const Point (&both)[2] = {p, q};
  auto& [first, second] = both;  // error: a structured binding over an array of 'const Point' is not supported
  return first.x * second.y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
