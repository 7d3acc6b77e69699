#include <adjoint/ad.hpp>
#include <cmath>
#include <vector>
std::vector<double> f(const std::vector<double>& x) {
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); i++) r[i] = std::sqrt(1 + x[i] * x[i]);
  return r;
}
double loss(const std::vector<double>& x) { return f(x)[0]; }  // error: indexing a std::vector or std::array that is not a variable or a member (such as a function's result) is not supported; have the function write into a 'std::vector<T>&' parameter instead
void request() { auto g = adjoint::gradient(loss); (void)g; }
