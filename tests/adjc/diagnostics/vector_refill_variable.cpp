#include <adjoint/ad.hpp>
#include <vector>
double f(double x, int n) {
  std::vector<double> v;
  v.assign(n, x);  // error: the fill value of 'std::vector::assign' on 'v' must be a constant; fill with a constant and assign the value in a loop
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * v[i] * (i + 1);
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
