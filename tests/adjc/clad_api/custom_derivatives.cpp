// Custom derivatives in Clad's namespaces: clad::custom_derivatives (free functions, one written
// with Clad's std::*_pushforward), its class_functions (a member function, the object first) and
// its std (a standard function adjc has no rule for).
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

// Declared only: its derivative comes from the custom pullback below.
double softplus(double x);
double softplus(double x) { return std::log1p(std::exp(x)); }

struct Spring {
  double k;
  double energy(double stretch) const { return 0.5 * k * stretch * stretch; }
};

// Its derivative is written with Clad's derivatives of standard functions (BuiltinDerivatives.h).
double wave(double x, double p) { return std::pow(x, p) * std::sin(x); }

namespace clad {
namespace custom_derivatives {
void softplus_pullback(double x, double d_y, double* d_x) { *d_x += d_y / (1 + ::std::exp(-x)); }
void wave_pullback(double x, double p, double d_y, double* d_x, double* d_p) {
  auto power_x = std::pow_pushforward(x, p, 1.0, 0.0), power_p = std::pow_pushforward(x, p, 0.0, 1.0);
  auto sine = std::sin_pushforward(x, 1.0);
  *d_x += d_y * (power_x.pushforward * sine.value + power_x.value * sine.pushforward);
  *d_p += d_y * power_p.pushforward * sine.value;
}
namespace class_functions {
void energy_pullback(const Spring* s, double stretch, double d_y, Spring* d_s, double* d_stretch) {
  if (d_s) d_s->k += d_y * 0.5 * stretch * stretch;  // nullptr: adjc knows the object is a constant
  *d_stretch += d_y * s->k * stretch;
}
}  // namespace class_functions
namespace std {
// d/dx Ei(x) = e^x / x.
void expint_pullback(double x, double d_y, double* d_x) { *d_x += d_y * ::std::exp(x) / x; }
}  // namespace std
}  // namespace custom_derivatives
}  // namespace clad

double loss(double x, double y) {
  Spring s{2.5};
  return softplus(x) * y + s.energy(x - y) + std::expint(y) + wave(x, y);
}

int main() {
  double x = 0.4, y = 1.3, dx = 0, dy = 0;
  clad::gradient(loss).execute(x, y, &dx, &dy);
  expect_gradient("dx", dx, x, [&] { return loss(x, y); });
  expect_gradient("dy", dy, y, [&] { return loss(x, y); });
  return clad_style::report();
}
