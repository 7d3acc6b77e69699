// A unit that requests a gradient, compiled and linked by adjc++ in separate steps.
#include <adjoint/ad.hpp>

#include <cstdio>

#include "square.hpp"

double f(double x, double y) { return square(x) * y + y; }

int main() {
  double dx = 0, dy = 0;
  adjoint::gradient(f).execute(3.0, 2.0, &dx, &dy);
  std::printf("df/dx = %g, df/dy = %g\n", dx, dy);
  return dx == 12 && dy == 10 ? 0 : 1;
}
