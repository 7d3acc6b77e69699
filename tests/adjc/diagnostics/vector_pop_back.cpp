#include <adjoint/ad.hpp>
#include <vector>
double f(const double* x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back(x[i] * x[i]);
  v.pop_back();  // error: 'std::vector::pop_back' is not supported on std::vector 'v' in differentiated code; adjc supports operator[], at(), size(), empty(), data(), front(), back(), push_back(), resize(), assign(n, value), clear()
  return v[0];
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
