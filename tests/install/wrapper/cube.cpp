// A second unit that requests a gradient, compiled in one command with square.cpp.
#include <adjoint/ad.hpp>

double cube(double x) { return x * x * x; }

double cube_slope(double x) {
  double d = 0;
  adjoint::gradient(cube).execute(x, &d);
  return d;
}
