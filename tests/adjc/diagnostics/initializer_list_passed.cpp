#include <adjoint/ad.hpp>
#include <initializer_list>
double sum(std::initializer_list<double> values) {
  double s = 0;
  for (double v : values) s += v;
  return s;
}
double f(double x, double y) {
  auto&& values = {x, y * x};
  return sum(values);  // error: std::initializer_list 'values' used other than by a range-for, begin(), end() or size(), which is not supported; put the values in a local array: const double a[] = {...};
}
void request() { auto g = adjoint::gradient(f); (void)g; }
