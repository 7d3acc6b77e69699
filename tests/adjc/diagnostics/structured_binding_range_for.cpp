#include <adjoint/ad.hpp>
struct Point { double x, y; };
double f(const Point* points, double w) {
  double total = 0;
  Point pair[2] = {points[0], points[1]};
  for (auto [x, y] : pair)  // error: a structured binding in a range-for is not supported; take the element
    total += x * y * w;
  return total;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
