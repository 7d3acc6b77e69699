#include <adjoint/ad.hpp>
// Clad's request by position counts the parameters from 0.
double f(double x, double y) { return x * y; }
void request() {
  auto g = adjoint::gradient(f, "2");  // error: 'f' has no parameter at position 2 (it has 2, counted from 0)
  (void)g;
}
