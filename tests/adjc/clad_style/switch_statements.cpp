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
// Initialisers and condition variables, scoped to the statement as in C++.
double with_init(double x, int n) {
  double r = x;
  switch (int k = n % 3; k) {
    case 0: r *= 2; break;
    case 1: r *= x; break;
    default: r -= x;
  }
  if (double t = x * x; t > 0.3) r += t * x;
  if (double u = x - 0.5) r *= u;
  return r;
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
  for (int n = 0; n < 3; n++) {
    double dx = 0;
    adjoint::gradient(with_init, "x").execute(x, n, &dx);
    expect_gradient("d with_init / dx", dx, x, [&] { return with_init(x, n); });
  }
  return clad_style::report();
}
