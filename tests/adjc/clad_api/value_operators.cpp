// What Clad's MemberFunctions.C writes: compound operators returning their class by value
// (`S operator+=(double)` returning `*this`, called as statements), a struct parameter by value
// they update, and a local pointer assigned and never read; forward mode and gradients against
// central differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

struct Pair {
  double x, y;
  double* rows[2];
  Pair operator+=(double v) {
    x += v;
    y *= v;
    return *this;
  }
  Pair operator*=(double v) {
    x *= v;
    return *this;
  }
  double weighted(double w) {
    [[maybe_unused]] double* unused;  // assigned, never read: left out of the derivative
    unused = rows[1];
    return w * x + std::sin(w) * y;
  }
};

double shifted(Pair p, double v) {
  p += v;
  p *= v;
  return p.x * p.y;
}

int main() {
  Pair p{1.5, -0.5, {nullptr, nullptr}};
  double v = 0.75;
  auto f = [&] { return shifted(p, v); };
  expect_gradient("forward, operators by value", clad::differentiate(shifted, "v").execute(p, v), v, f);
  double d_v = 0;
  Pair d_p{};
  clad::gradient(shifted, "v").execute(p, v, &d_v);
  expect_gradient("gradient, operators by value", d_v, v, f);
  (void)d_p;
  double w = 0.4;
  expect_gradient("unread local pointer", clad::differentiate(&Pair::weighted, "w").execute(p, w), w,
                  [&] { return p.weighted(w); });
  return clad_style::report();
}
