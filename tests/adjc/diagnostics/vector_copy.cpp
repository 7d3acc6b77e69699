#include <adjoint/ad.hpp>
#include <utility>
#include <vector>
double f(const std::vector<double>& x) {
  std::vector<double> z(2);
  z[0] = x[0];
  z[1] = x[1];
  std::vector<double> y = std::move(z);  // error: copying into 'y' from something other than a variable or a member is not supported; declare it with its size and copy the elements in a loop
  return y[0] * y[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
