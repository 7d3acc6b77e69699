// The N-th derivative (adjoint::derivative<N>) is not supported yet.
#include <adjoint/ad.hpp>
double f(double x) { return x * x * x; }
void request() {
  auto d = adjoint::derivative<3>(f, "x");  // error: derivatives of order 3 are not supported yet by adjc's forward mode (only order 1)
  (void)d;
}
