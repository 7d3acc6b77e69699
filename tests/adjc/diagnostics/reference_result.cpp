#include <adjoint/ad.hpp>
// Not one `return` of an element or member (an accessor, which adjc rewrites into the place).
const double& larger(const double* p, int k) {  // error: function 'larger' returns a reference ('const double &'), which adjc cannot differentiate; return the value instead
  if (p[k] > p[0]) return p[k];
  return p[0];
}
double f(const double* x) { return larger(x, 1) * x[0]; }
void request() { auto g = adjoint::gradient(f); (void)g; }
