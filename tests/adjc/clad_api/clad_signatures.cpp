// Forms Clad's users write that adjc reads as Clad does: custom pullbacks with Clad's adjoints for
// integer, bool and enum parameters (scratch to adjc, which takes no derivative through them),
// std::max and std::min with a comparison, and execute with an adjoint for every parameter,
// integers too (dropped), or with one array of all the adjoints; the generated gradient called by
// Clad's name in Clad's form, with an adjoint for the integer parameter too (left as it was).
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <functional>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

enum class Mode { linear, square };

// Declared only: their derivatives are the custom pullbacks below.
double scaled(double x, int k, bool flip);
double shaped(double x, const Mode& m, const int* steps);
double scaled(double x, int k, bool flip) { return (flip ? -k : k) * x; }
double shaped(double x, const Mode& m, const int* steps) { return (m == Mode::square ? x * x : x) * steps[0]; }

namespace clad::custom_derivatives {
void scaled_pullback(double, int k, bool flip, double d_y, double* d_x, int* d_k, bool* d_flip) {
  *d_x += d_y * (flip ? -k : k);
  *d_k = 99;  // scratch: adjc drops it
  *d_flip = true;
}
void shaped_pullback(double x, const Mode& m, const int* steps, double d_y, double* d_x, Mode* d_m, int* d_steps) {
  *d_x += d_y * (m == Mode::square ? 2 * x : 1.0) * steps[0];
  if (d_m) *d_m = Mode::linear;
  if (d_steps) d_steps[0] = 7;  // nullptr from adjc: the pointer's integers are not differentiated
}
}  // namespace clad::custom_derivatives

double uses_custom(double x, double y) {
  int steps[1] = {3};
  return scaled(x * y, 4, true) + shaped(y, Mode::square, steps) + scaled(y, 2, false);
}

// The larger under std::greater is the smaller: 2·min(x, y) − 3·max(x, y), in both orders.
double extremes(double x, double y) {
  double low = std::max(x, y, std::greater<double>());
  double high = std::min(x, y, std::greater<double>());
  return 2 * low - 3 * high + std::max(y * x, x, std::less<double>());
}

double smooth(double x, double y) { return std::sin(x) * y + y * y; }

double squares(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i] * (i + 1);
  return s;
}

double powered(float x, int n) { return std::pow(x, n) + x; }
void powered_grad(float x, int n, float* _d_x, int* _d_n);  // defined by adjc

int main() {
  double x = 1.5, y = -0.75, dx = 0, dy = 0;
  clad::gradient(uses_custom).execute(x, y, &dx, &dy);
  expect_gradient("custom with integer adjoints: dx", dx, x, [&] { return uses_custom(x, y); });
  expect_gradient("custom with integer adjoints: dy", dy, y, [&] { return uses_custom(x, y); });

  for (double a : {2.5, -4.0}) {
    x = a, dx = 0, dy = 0;
    clad::gradient(extremes).execute(x, y, &dx, &dy);
    expect_gradient("std::max/min with a comparison: dx", dx, x, [&] { return extremes(x, y); });
    expect_gradient("std::max/min with a comparison: dy", dy, y, [&] { return extremes(x, y); });
  }

  // Clad's early form: one array after the arguments receives every adjoint, in order.
  double result[2] = {};
  clad::gradient(smooth).execute(x, y, result);
  expect_gradient("one array: [0]", result[0], x, [&] { return smooth(x, y); });
  expect_gradient("one array: [1]", result[1], y, [&] { return smooth(x, y); });
  // An adjoint for the integer n as Clad's execute takes it: left as it was.
  double v[3] = {0.5, -2.0, 1.5}, d_v[3] = {};
  double d_n = 7;
  clad::gradient(squares).execute(v, 3, d_v, &d_n);
  for (int i = 0; i < 3; ++i) expect_gradient("integer adjoint given: d_v[i]", d_v[i], v[i], [&] { return squares(v, 3); });
  clad_style::expect_value("integer adjoint given: d_n", d_n, 7);
  float px = 1.5f, d_px = 0;
  int d_pn = 5;
  auto powered_request = clad::gradient(powered);  // generates powered_grad
  (void)powered_request;
  powered_grad(px, 3, &d_px, &d_pn);
  clad_style::expect_value("declared powered_grad: d_x", d_px, 3 * 1.5 * 1.5 + 1);
  clad_style::expect_value("declared powered_grad: d_n left as it was", d_pn, 5);
  return clad_style::report();
}
