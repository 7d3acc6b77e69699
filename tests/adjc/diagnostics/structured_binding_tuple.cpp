#include <adjoint/ad.hpp>
#include <tuple>
std::tuple<double, double> split(double x) { return {x * x, 2 * x}; }
double f(double x) {
  auto [square, twice] = split(x);  // error: a structured binding over tuple-like class 'std::tuple<double, double>' is not supported
  return square * twice;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
