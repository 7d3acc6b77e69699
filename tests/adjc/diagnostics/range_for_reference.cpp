#include <adjoint/ad.hpp>
#include <vector>
void f(std::vector<double>& v) {
  for (double& e : v) e = 2 * e * e;  // error: a range-for writing the elements through 'e' is not supported; index them: for (std::size_t i = 0; i < v.size(); ++i) v[i] = ...
}
void request() { auto g = adjoint::gradient(f); (void)g; }
