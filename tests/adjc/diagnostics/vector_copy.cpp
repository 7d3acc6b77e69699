#include <adjoint/ad.hpp>
#include <vector>
double f(const std::vector<double>& x) {
  std::vector<double> y = x;  // error: copying into 'y' is not supported; declare it with its size and copy the elements in a loop
  return y[0] * y[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
