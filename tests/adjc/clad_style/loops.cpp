// for, while and do-while loops, nested, with break and continue, over arrays and scalars.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double power_loop(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; i++) r *= x;
  return r;
}
double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}
double matvec_norm(const double* m, const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double row = 0;
    for (int j = 0; j < n; j++) row += m[i * n + j] * v[j];
    s += row * row;
  }
  return s;
}
double while_halving(double x) {
  double y = x;
  int steps = 0;
  while (steps < 5) {
    y = y * 0.5 + x;
    steps++;
  }
  do {
    y = y * y * 0.1;
  } while (false);
  return y;
}
double skip_and_stop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0) continue;
    if (s > 3) break;
    s += x[i] * x[i] + s * x[i];
  }
  return s;
}

int main() {
  double x = 1.1, dx = 0;
  adjoint::gradient(power_loop, "x").execute(x, 5, &dx);
  expect_gradient("d power_loop / dx", dx, x, [&] { return power_loop(x, 5); });
  double a[3] = {0.5, -1, 2}, b[3] = {1.5, 0.25, -0.5}, da[3] = {}, db[3] = {};
  adjoint::gradient(dot, "a, b").execute(a, b, 3, da, db);
  for (int i = 0; i < 3; i++) {
    expect_gradient("d dot / da[i]", da[i], a[i], [&] { return dot(a, b, 3); });
    expect_gradient("d dot / db[i]", db[i], b[i], [&] { return dot(a, b, 3); });
  }
  double m[9] = {1, 2, 0.5, -1, 0.3, 0.2, 0.7, -0.4, 1.2}, dm[9] = {}, dv[3] = {};
  adjoint::gradient(matvec_norm, "m, v").execute(m, b, 3, dm, dv);
  for (int i = 0; i < 9; i++) expect_gradient("d matvec_norm / dm[i]", dm[i], m[i], [&] { return matvec_norm(m, b, 3); });
  for (int i = 0; i < 3; i++) expect_gradient("d matvec_norm / dv[i]", dv[i], b[i], [&] { return matvec_norm(m, b, 3); });
  dx = 0;
  adjoint::gradient(while_halving).execute(x, &dx);
  expect_gradient("d while_halving / dx", dx, x, [&] { return while_halving(x); });
  double s[6] = {0.5, -0.2, 1.1, 0.9, -1, 1.5}, ds[6] = {};
  adjoint::gradient(skip_and_stop, "x").execute(s, 6, ds);
  for (int i = 0; i < 6; i++) expect_gradient("d skip_and_stop / dx[i]", ds[i], s[i], [&] { return skip_and_stop(s, 6); });
  return clad_style::report();
}
