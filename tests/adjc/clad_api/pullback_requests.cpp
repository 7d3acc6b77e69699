// clad::pullback requests: the gradient scaled by the seed given after the function's arguments,
// and, of a void function, the adjoints of what it writes carried back through it.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double wave(double x, double y) { return x * std::sin(y) + x * x; }

// Writes its result through `p`.
void stretch(double* p, double k) { *p = *p * k + std::exp(k); }

int main() {
  double x = 0.6, y = 1.1, seed = 2.5, dx = 0, dy = 0;
  clad::pullback(wave).execute(x, y, seed, &dx, &dy);
  expect_gradient("seeded: dx", dx, x, [&] { return seed * wave(x, y); });
  expect_gradient("seeded: dy", dy, y, [&] { return seed * wave(x, y); });

  // The adjoint of *p on entry is the seed of what stretch leaves there.
  double p = 1.7, k = 0.3, d_p = 0.5, d_k = 0;
  auto written = [&] {
    double q = p;
    stretch(&q, k);
    return 0.5 * q;
  };
  clad::pullback(stretch).execute(&p, k, &d_p, &d_k);
  expect_gradient("void: d_p", d_p, p, written);
  expect_gradient("void: d_k", d_k, k, written);
  return clad_style::report();
}
