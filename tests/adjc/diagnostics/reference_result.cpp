#include <adjoint/ad.hpp>
const double& element(const double* p, int k) {  // error: function 'element' returns a reference ('const double &'), which adjc cannot differentiate; return the value instead
  return p[k];
}
double f(const double* x) { return element(x, 1) * x[0]; }
void request() { auto g = adjoint::gradient(f); (void)g; }
