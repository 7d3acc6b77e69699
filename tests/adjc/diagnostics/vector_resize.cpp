#include <adjoint/ad.hpp>
#include <vector>
double f(const double* x, int n) {
  std::vector<double> v;
  v.resize(n);  // error: 'std::vector::resize' is not supported on std::vector 'v' in differentiated code
  for (int i = 0; i < n; i++) v[i] = x[i] * x[i];
  return v[0];
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
