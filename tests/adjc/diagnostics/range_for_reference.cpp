#include <adjoint/ad.hpp>
double f(double x, double y) {
  double s = 0;
  for (double v : {x, y, x * y}) s += v * v;  // error: a range-for over 'std::initializer_list<double>' is not supported; iterate over an array, a std::vector or a std::array (put the values in a local array: double a[] = {...};)
  return s;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
