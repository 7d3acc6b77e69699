// clad::differentiate (forward mode) by name and by position, an array element, a custom
// pushforward in clad::custom_derivatives, dump(), and C-variadic functions whose `...` is never
// read (free and member, called in the differentiated code), and higher derivatives called by the
// names Clad gives them (`f_d2arg0`, declared by the user); each derivative against central
// differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <cstring>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double product(double x, double y) { return x * y * y + std::sin(x); }

double smooth_step(double x) { return x * x * (3 - 2 * x); }
namespace clad::custom_derivatives {
clad::ValueAndPushforward<double, double> smooth_step_pushforward(double x, double d_x) {
  return {x * x * (3 - 2 * x), 6 * x * (1 - x) * d_x};
}
}  // namespace clad::custom_derivatives
double uses_step(double x, double y) { return smooth_step(x * y) + y; }

double triple(const double v[3]) { return v[0] * v[1] * v[2] + v[1]; }

// C-variadic, the `...` unread: differentiated in their named parameters.
double weighted(double a, double b, ...) { return a * a * b + std::cos(b); }
struct Scale {
  double k;
  double apply(double t, ...) const { return k * t * t + weighted(t, k); }
};

// Clad's names for the second and third derivatives along x, declared as Clad's users do.
double wave(double x, double y) { return std::sin(x * y) * x; }
double wave_d2arg0(double x, double y);
double wave_d3arg0(double x, double y);

int main() {
  double x = 1.5, y = -0.5;
  auto f = [&] { return product(x, y); };
  expect_gradient("differentiate(product, \"x\")", clad::differentiate(product, "x").execute(x, y), x, f);
  expect_gradient("differentiate(product, 1)", clad::differentiate(product, 1).execute(x, y), y, f);
  expect_gradient("differentiate<clad::order::first>",
                  clad::differentiate<clad::order::first>(product, "y").execute(x, y), y, f);

  auto g = [&] { return uses_step(x, y); };
  expect_gradient("custom pushforward", clad::differentiate(uses_step, "x").execute(x, y), x, g);

  double v[3] = {0.5, -1.0, 2.0};
  auto d = clad::differentiate(triple, "v[1]");
  expect_gradient("differentiate(triple, \"v[1]\")", d.execute(v), v[1], [&] { return triple(v); });
  d.dump();
  clad_style::expect_value("source() names triple_pushforward",
                           std::strstr(d.source(), "triple_pushforward") != nullptr, 1);

  Scale s{1.25};
  double t = 0.75;
  expect_gradient("variadic member", clad::differentiate(&Scale::apply, "t").execute(s, t), t,
                  [&] { return s.apply(t); });
  expect_gradient("variadic free function", clad::differentiate(weighted, "b").execute(x, y), y,
                  [&] { return weighted(x, y); });

  auto second = clad::differentiate<2>(wave, "x");
  auto third = clad::differentiate<3>(wave, "x");
  auto first = clad::differentiate(wave, "x");
  expect_gradient("wave_d2arg0 by Clad's name", wave_d2arg0(x, y), x, [&] { return first.execute(x, y); });
  expect_gradient("wave_d3arg0 by Clad's name", wave_d3arg0(x, y), x, [&] { return second.execute(x, y); });
  clad_style::expect_value("wave_d3arg0 is execute's", wave_d3arg0(x, y), third.execute(x, y));
  return clad_style::report();
}
