#include <adjoint/ad.hpp>
#include <algorithm>
#include <vector>
double f(std::vector<double>& v) {
  std::sort(v.begin(), v.end());  // error: 'std::vector::begin' is not supported on std::vector 'v' in differentiated code
  return v[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
