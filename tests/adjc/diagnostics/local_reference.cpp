#include <adjoint/ad.hpp>
double f(double* x, int n) {
  int i = 0;
  double& r = x[i];  // error: local reference 'r' is not supported: 'i', which picks what it refers to, changes in its scope; use a pointer (T* r = &...) and '*r'
  i = n - 1;
  r = r * x[i];
  return r * r;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
