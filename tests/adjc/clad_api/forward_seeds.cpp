// clad::differentiate along what Clad's forward mode lets a request name besides a scalar: an
// element of a pointer parameter, a member of a struct parameter taken by `T&&`; a function
// returning std::pair; vector mode into a declared `f_dvec` and with a pointer whose derivative is
// a clad::array_ref; a Jacobian of a float input into a double* output; each derivative against
// central differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>
#include <utility>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double dot_tail(const double* x, int n) {
  double s = 0;
  for (int i = 1; i < n; ++i) s += x[i] * x[i - 1];
  return std::exp(0.1 * s);
}

struct Body {
  double mass, speed;
};
double kinetic(Body&& b) { return 0.5 * b.mass * b.speed * b.speed; }

std::pair<double, double> rotate(double x, double angle) { return {x * std::cos(angle), x * std::sin(angle)}; }

double bilinear(double x, double y) { return x * y + std::sin(x); }
void bilinear_dvec(double x, double y, double* d_x, double* d_y);

void square_and_copy(float a, double* out) {
  out[0] = a * a;
  out[1] = a;
}

int main() {
  double x[4] = {0.4, -0.9, 1.3, 0.2};
  double& x2 = x[2];
  expect_gradient("x[2] of a pointer", clad::differentiate(dot_tail, "x[2]").execute(x, 4), x2,
                  [&] { return dot_tail(x, 4); });

  double mass = 3, speed = 1.5;
  auto d_speed = clad::differentiate(kinetic, "b.speed");
  expect_gradient("b.speed of a T&&", d_speed.execute(Body{mass, speed}), speed, [&] {
    return kinetic(Body{mass, speed});
  });

  double angle = 0.7;
  auto d_rotate = clad::differentiate(rotate, "angle").execute(2.0, angle);
  expect_gradient("pair first", d_rotate.first, angle, [&] { return rotate(2.0, angle).first; });
  expect_gradient("pair second", d_rotate.second, angle, [&] { return rotate(2.0, angle).second; });

  double u = 0.3, v = -1.1, d_u = 0, d_v = 0;
  clad::differentiate<clad::opts::vector_mode>(bilinear);
  bilinear_dvec(u, v, &d_u, &d_v);
  expect_gradient("f_dvec x", d_u, u, [&] { return bilinear(u, v); });
  expect_gradient("f_dvec y", d_v, v, [&] { return bilinear(u, v); });

  double d_x[4] = {};
  auto vector_d = clad::differentiate<clad::opts::vector_mode>(dot_tail, "x");
  vector_d.execute(x, 4, clad::array_ref<double>(d_x, 4));
  for (int k = 0; k < 4; ++k) expect_gradient("array_ref", d_x[k], x[k], [&] { return dot_tail(x, 4); });

  // out has two elements: square_and_copy uses it only at indices 0 and 1.
  double out[2], jacobian[2];
  clad::jacobian(square_and_copy).execute(3, out, jacobian);
  clad_style::expect_value("d(a*a)/da", jacobian[0], 6);
  clad_style::expect_value("d(a)/da", jacobian[1], 1);
  return clad_style::report();
}
