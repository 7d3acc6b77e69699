// Side effects inside expressions: chained and nested assignments, ++/-- in expressions and in
// loop conditions, the comma operator, range-for over a local 2-D array.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double chain(double x, double y) {
  double a, b;
  a = b = x * y;
  a += b *= x;
  double t = (a > b) ? a : b;
  t = -t + +x;
  return t * a - b / y;
}
double countdown(double x, int n) {
  double r = 1;
  int i = 0;
  while (i < n) { r = r * x + 0.5; if (r > 100) break; i++; }
  do { r -= 0.1 * x; } while (--n > 0);
  return r;
}
double post_increments(const double* x, int n) {
  double s = 0;
  int i = 0;
  while (i < n) s += x[i++] * s + 1;
  int k = n;
  while (k--) s *= 1 + 0.1 * x[k];
  return s;
}
double both_ends(const double* x, int n) {
  double s = 0;
  for (int i = 0, j = n - 1; i < j; i += 2, j--) s += x[i] * x[j];
  return s;
}
double comma_value(double x) {
  double a;
  return (a = x * x, a * x);
}
double grid(double x) {
  double m[2][3];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) m[i][j] = x * (i + 1) + j * x * x;
  double s = 0;
  for (auto& row : m)
    for (double v : row) s += v * v;
  return s;
}

int main() {
  double x = 0.8, y = 1.9, dx = 0, dy = 0;
  adjoint::gradient(chain).execute(x, y, &dx, &dy);
  expect_gradient("d chain / dx", dx, x, [&] { return chain(x, y); });
  expect_gradient("d chain / dy", dy, y, [&] { return chain(x, y); });
  dx = 0;
  adjoint::gradient(countdown, "x").execute(x, 4, &dx);
  expect_gradient("d countdown / dx", dx, x, [&] { return countdown(x, 4); });
  double v[5] = {0.3, -0.7, 1.1, 0.4, -0.2}, dv[5] = {};
  adjoint::gradient(post_increments, "x").execute(v, 5, dv);
  for (int i = 0; i < 5; i++) expect_gradient("d post_increments / dx[i]", dv[i], v[i], [&] { return post_increments(v, 5); });
  double dw[5] = {};
  adjoint::gradient(both_ends, "x").execute(v, 5, dw);
  for (int i = 0; i < 5; i++) expect_gradient("d both_ends / dx[i]", dw[i], v[i], [&] { return both_ends(v, 5); });
  dx = 0;
  adjoint::gradient(comma_value).execute(x, &dx);
  expect_gradient("d comma_value / dx", dx, x, [&] { return comma_value(x); });
  dx = 0;
  adjoint::gradient(grid).execute(x, &dx);
  expect_gradient("d grid / dx", dx, x, [&] { return grid(x); });
  return clad_style::report();
}
