#include <adjoint/ad.hpp>
#include <algorithm>
#include <functional>
double f(double x, double y) {
  return std::max({x, y, x * y}, std::greater<double>());  // error: passing a braced list (a std::initializer_list) to 'std::max' is not supported; adjc supports std::max({...}) and std::min({...}) of numbers without a comparator
}
void request() { auto g = adjoint::gradient(f); (void)g; }
