// Every differentiable parameter is written and none is named: nothing to differentiate by.
#include <adjoint/ad.hpp>
void smooth(double* x, int n) {
  for (int i = 1; i < n; ++i) x[i] = 0.5 * (x[i] + x[i - 1]);
}
void request() {
  auto j = adjoint::jacobian(smooth);  // error: 'smooth' has no input left: name the parameters to differentiate with respect to (one it writes too, for a function that updates an array in place)
  (void)j;
}
