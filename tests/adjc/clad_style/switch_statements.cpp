// switch: case groups, default, switch inside loops, return from a case.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double by_mode(double x, double y, int mode) {
  double r = 0;
  switch (mode) {
    case 0: r = x + y; break;
    case 1:
    case 2: r = x * y * mode; break;
    case 3: return x / y;
    default: r = x * x - y;
  }
  return r * x;
}
double alternating(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    switch (i % 3) {
      case 0: s += x[i]; break;
      case 1: s *= x[i]; break;
      default: s -= x[i] * x[i];
    }
  }
  return s;
}

int main() {
  double x = 0.7, y = 1.9;
  for (int mode = 0; mode < 5; mode++) {
    double dx = 0, dy = 0;
    adjoint::gradient(by_mode, "x, y").execute(x, y, mode, &dx, &dy);
    expect_gradient("d by_mode / dx", dx, x, [&] { return by_mode(x, y, mode); });
    expect_gradient("d by_mode / dy", dy, y, [&] { return by_mode(x, y, mode); });
  }
  double v[7] = {0.3, 1.2, -0.5, 0.8, 2, -1, 0.4}, dv[7] = {};
  adjoint::gradient(alternating, "x").execute(v, 7, dv);
  for (int i = 0; i < 7; i++) expect_gradient("d alternating / dx[i]", dv[i], v[i], [&] { return alternating(v, 7); });
  return clad_style::report();
}
