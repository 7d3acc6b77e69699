// A value the forward sweep overwrites and the reverse sweep needs is pushed before the
// overwrite and popped back after its adjoint is propagated.
#include <adjoint/ad.hpp>
#include <cmath>

double iterate(double x, int n) {
  double y = x;
  for (int i = 0; i < n; i++) y = std::sin(y) * y;
  return y;
}

const char* request() { return adjoint::gradient(iterate, "x").source(); }
