// Clad's clad::zero_like: a class whose values hold memory (here a length that says how much) gets
// adjoints built by the unit's `clad::zero_like(const T&)`, shaped as the value, instead of `T{}`.
// The custom pullbacks below add nothing to an adjoint of another shape, so a gradient that
// matches finite differences shows the adjoints they were given were built by zero_like.
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

struct Reading {
  double level;
  const double* samples;  // carried along, never read by the derivative
  int count;
};

int zero_like_calls = 0;

namespace clad {
Reading zero_like(const Reading& r) {
  ++zero_like_calls;
  return {0.0, nullptr, r.count};
}
}  // namespace clad

Reading sample(double x, int count) { return {x * x, nullptr, count}; }

double level_of(const Reading& r) { return r.count > 0 ? r.level : 0.0; }

namespace clad::custom_derivatives {
void sample_pullback(double x, int count, Reading d_r, double* d_x) {
  if (d_r.count == count) *d_x += 2 * x * d_r.level;
}
void level_of_pullback(const Reading& r, double d_y, Reading* d_r) {
  if (d_r->count == r.count) d_r->level += r.count > 0 ? d_y : 0.0;
}
}  // namespace clad::custom_derivatives

double once(double x, double y) {
  Reading r = sample(x, 3);
  return level_of(r) * y;
}

// A call's result in a loop: each iteration's adjoint is shaped anew.
double looped(double x, double y) {
  double sum = 0;
  for (int i = 1; i < 4; ++i) sum += level_of(sample(x * i, i)) * y;
  return sum;
}

int main() {
  clad_style::expect_gradients("once", once, clad::gradient(once), 1.2, -0.6);
  clad_style::expect_gradients("looped", looped, clad::gradient(looped), 0.9, 1.7);
  clad_style::expect_value("zero_like called", zero_like_calls > 0, 1);
  return clad_style::report();
}
