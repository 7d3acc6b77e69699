// Early returns from branches, from loops and from nested loops.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double piecewise(double x, double y) {
  if (x > 1) return x * y;
  if (y < 0) return y * y;
  double t = x + y;
  return t * t * x;
}
double first_above(const double* x, int n, double limit) {
  for (int i = 0; i < n; i++)
    if (x[i] * limit > 1) return x[i] * x[i] * limit;
  return limit;
}
double search_pairs(const double* x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      acc += x[i] * x[j];
      if (acc > 2) return acc * x[j];
    }
  }
  return acc;
}
double countdown(double x, int n) {
  while (true) {
    if (n == 0) return x;
    x = x * 0.9 + 0.1 * x * x;
    n--;
  }
}

int main() {
  double x = 0.4, y = 0.9;
  for (double xv : {1.5, 0.4}) {
    for (double yv : {0.9, -0.3}) {
      x = xv, y = yv;
      double dx = 0, dy = 0;
      adjoint::gradient(piecewise).execute(x, y, &dx, &dy);
      expect_gradient("d piecewise / dx", dx, x, [&] { return piecewise(x, y); });
      expect_gradient("d piecewise / dy", dy, y, [&] { return piecewise(x, y); });
    }
  }
  double v[5] = {0.2, 0.3, 1.1, 0.9, 1.4}, dv[5] = {}, limit = 1.2, dlimit = 0;
  adjoint::gradient(first_above, "x, limit").execute(v, 5, limit, dv, &dlimit);
  for (int i = 0; i < 5; i++) expect_gradient("d first_above / dx[i]", dv[i], v[i], [&] { return first_above(v, 5, limit); });
  expect_gradient("d first_above / dlimit", dlimit, limit, [&] { return first_above(v, 5, limit); });
  double dw[5] = {};
  adjoint::gradient(search_pairs, "x").execute(v, 5, dw);
  for (int i = 0; i < 5; i++) expect_gradient("d search_pairs / dx[i]", dw[i], v[i], [&] { return search_pairs(v, 5); });
  double dx = 0;
  adjoint::gradient(countdown, "x").execute(x, 4, &dx);
  expect_gradient("d countdown / dx", dx, x, [&] { return countdown(x, 4); });
  return clad_style::report();
}
