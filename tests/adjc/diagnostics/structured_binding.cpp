#include <adjoint/ad.hpp>
#include <utility>
std::pair<double, double> split(double x) { return {x * x, 2 * x}; }
double f(double x) {
  auto [square, twice] = split(x);  // error: structured bindings are not supported; declare the struct or pair and name its members
  return square * twice;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
