// Requests written through macros, the way test suites wrap them.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double f(double x, double y) { return x * x * y - y; }
double g(double x) { return 1 / (1 + x * x); }

#define GRADIENT(fn, ...) adjoint::gradient(fn, ##__VA_ARGS__)
#define CHECK_ONE(fn, value)                                                 \
  do {                                                                       \
    double v_ = value, d_ = 0;                                               \
    adjoint::gradient(fn).execute(v_, &d_);                                  \
    expect_gradient("d " #fn " / dx", d_, v_, [&] { return fn(v_); });       \
  } while (0)

int main() {
  double x = 0.4, y = 2.5, dx = 0, dy = 0;
  GRADIENT(f, "x, y").execute(x, y, &dx, &dy);
  expect_gradient("d f / dx", dx, x, [&] { return f(x, y); });
  expect_gradient("d f / dy", dy, y, [&] { return f(x, y); });
  dx = 0;
  GRADIENT(g).execute(x, &dx);
  expect_gradient("d g / dx", dx, x, [&] { return g(x); });
  CHECK_ONE(g, 1.5);
  CHECK_ONE(g, -0.5);
  return clad_style::report();
}
