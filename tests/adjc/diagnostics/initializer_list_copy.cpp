#include <adjoint/ad.hpp>
#include <initializer_list>
double f(double x, double y) {
  auto&& a = {x, y};
  std::initializer_list<double> b = a;  // error: std::initializer_list 'b' initialised other than by a braced list is not supported; put the values in a local array: const double a[] = {...};
  double s = 0;
  for (double v : b) s += v * v;
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
