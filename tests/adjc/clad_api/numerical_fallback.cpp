// Clad's numerical fallback: calls of functions without a body in this unit (defined in another
// unit, here an alias of a function adjc does not see through) are differentiated by central
// differences, in scalars passed by value or by const reference, float or double, and through a
// function pointer the request follows.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

extern "C" {
double wave_impl(double x, double y) { return std::sin(x) * std::exp(0.5 * y); }
float ramp_impl(float t) { return t * t * t - 2.0f * t; }
double gauss_impl(const double& m) { return std::exp(-m * m); }
// Declarations without a body, as a function from another unit is seen.
double wave(double x, double y) __attribute__((alias("wave_impl")));
float ramp(float t) __attribute__((alias("ramp_impl")));
double gauss(const double& m) __attribute__((alias("gauss_impl")));
}

double model(double x, double y) { return wave(x * y, y) + x * gauss(y - x); }
float cubic(float t, float s) { return ramp(t * s) + s; }

int main() {
  double x = 0.7, y = -1.3;
  double dx = 0, dy = 0;
  clad::gradient(model).execute(x, y, &dx, &dy);
  auto f = [&] { return model(x, y); };
  expect_gradient("model: dx", dx, x, f);
  expect_gradient("model: dy", dy, y, f);

  // Only y: the fallback's adjoint of the other arguments is dropped.
  dy = 0;
  clad::gradient(model, "y").execute(x, y, &dy);
  expect_gradient("model \"y\": dy", dy, y, f);

  float t = 1.25f, s = 0.5f, dt = 0, ds = 0;
  auto pointer = &cubic;
  auto to_pointer = &pointer;
  clad::gradient(*to_pointer).execute(t, s, &dt, &ds);
  expect_gradient("cubic: dt", dt, t, [&] { return cubic(t, s); });
  expect_gradient("cubic: ds", ds, s, [&] { return cubic(t, s); });
  return clad_style::report();
}
