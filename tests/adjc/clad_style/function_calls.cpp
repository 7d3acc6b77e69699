// Calls of user functions: nested, repeated, with outputs through pointers and references.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double square(double x) { return x * x; }
double weighted(double x, double w) { return square(x) * w + x; }
void scale_into(double* out, double x, double k) { *out = x * k; }
void add_to(double& acc, double v) { acc += v * v; }
double caller(double x, double y) {
  double t = weighted(x, y) + square(square(y));
  double u = 0;
  scale_into(&u, t, x);
  add_to(u, y);
  return u + weighted(u, 0.5);
}

int main() {
  double x = 0.6, y = -1.1, dx = 0, dy = 0;
  adjoint::gradient(caller).execute(x, y, &dx, &dy);
  expect_gradient("d caller / dx", dx, x, [&] { return caller(x, y); });
  expect_gradient("d caller / dy", dy, y, [&] { return caller(x, y); });
  dx = dy = 0;
  adjoint::gradient(weighted, "w").execute(x, y, &dy);
  expect_gradient("d weighted / dw", dy, y, [&] { return weighted(x, y); });
  return clad_style::report();
}
