// Reassignment, compound assignment, increments and chains of locals.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double reassign(double x, double y) {
  double t = x;
  t = t * y;
  t = t + x * t;
  x = y * y;
  return t * x;
}
double compound(double x, double y) {
  double r = x;
  r += y * x;
  r -= 0.5 * y;
  r *= x + y;
  r /= y * y + 2;
  return r;
}
double increments(double x) {
  double a = x;
  a++;
  ++a;
  a--;
  double b = a * a;
  --b;
  return b * x;
}
double swap_values(double x, double y) {
  double a = x, b = y;
  double t = a;
  a = b;
  b = t;
  return a * a * b;
}

int main() {
  double x = 0.6, y = 1.7, dx = 0, dy = 0;
  adjoint::gradient(reassign).execute(x, y, &dx, &dy);
  expect_gradient("d reassign / dx", dx, x, [&] { return reassign(x, y); });
  expect_gradient("d reassign / dy", dy, y, [&] { return reassign(x, y); });
  dx = dy = 0;
  adjoint::gradient(compound).execute(x, y, &dx, &dy);
  expect_gradient("d compound / dx", dx, x, [&] { return compound(x, y); });
  expect_gradient("d compound / dy", dy, y, [&] { return compound(x, y); });
  dx = 0;
  adjoint::gradient(increments).execute(x, &dx);
  expect_gradient("d increments / dx", dx, x, [&] { return increments(x); });
  dx = dy = 0;
  adjoint::gradient(swap_values).execute(x, y, &dx, &dy);
  expect_gradient("d swap_values / dx", dx, x, [&] { return swap_values(x, y); });
  expect_gradient("d swap_values / dy", dy, y, [&] { return swap_values(x, y); });
  return clad_style::report();
}
