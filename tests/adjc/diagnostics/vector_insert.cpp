#include <adjoint/ad.hpp>
#include <vector>
double f(std::vector<double>& v, double x) {
  v.insert(v.begin(), x);  // error: 'std::vector::insert' is not supported on std::vector 'v' in differentiated code; adjc supports operator[], at(), size(), empty(), data(), front(), back(), push_back(), resize(), assign(n, value), clear(), fill(value) and range-for
  return v[0] * v[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
