// Conversions between float, double and integers: static_cast, functional and C-style casts.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double widen(float x, double y) { return static_cast<double>(x) * y + double(x) * (double)x; }
float narrow(double x) { return static_cast<float>(x * x) + float(x); }
double with_ints(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x * static_cast<double>(i) + (double)(n - i) * x * x;
  int k = static_cast<int>(3.9);
  return s / k;
}
double accumulate_float(const float* x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) acc += double(x[i]) * x[i];
  return acc;
}

int main() {
  float xf = 0.75f, dxf = 0;
  double y = 1.25, dy = 0;
  adjoint::gradient(widen).execute(xf, y, &dxf, &dy);
  expect_gradient("d widen / dx", dxf, xf, [&] { return widen(xf, y); });
  expect_gradient("d widen / dy", dy, y, [&] { return widen(xf, y); });
  double x = 0.3, dx = 0;
  adjoint::gradient(narrow).execute(x, &dx);
  // narrow rounds to float: compare with float's finite-difference tolerance.
  float xn = float(x);
  expect_gradient("d narrow / dx", dx, xn, [&] { return narrow(xn); });
  dx = 0;
  adjoint::gradient(with_ints, "x").execute(x, 4, &dx);
  expect_gradient("d with_ints / dx", dx, x, [&] { return with_ints(x, 4); });
  float v[3] = {0.5f, -1.5f, 2}, dv[3] = {};
  adjoint::gradient(accumulate_float, "x").execute(v, 3, dv);
  for (int i = 0; i < 3; i++) expect_gradient("d accumulate_float / dx[i]", dv[i], v[i], [&] { return accumulate_float(v, 3); });
  return clad_style::report();
}
