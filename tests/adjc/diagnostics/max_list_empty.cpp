#include <adjoint/ad.hpp>
#include <algorithm>
double f(double x) {
  return x * std::min<double>({});  // error: 'std::min' of anything but a braced list of one or more elements is not supported
}
void request() { auto g = adjoint::gradient(f); (void)g; }
