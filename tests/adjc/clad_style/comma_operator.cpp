// The comma operator in statements and loop headers.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double comma_statement(double x, double y) {
  double a = 0, b = 0;
  a = x * x, b = a * y;
  return a + b;
}
double comma_loop(double x, int n) {
  double s = 1;
  int i, j;
  for (i = 0, j = n; i < j; ++i, --j) s = s * x + i * j;
  return s;
}

int main() {
  double x = 1.3, y = -0.4, dx = 0, dy = 0;
  adjoint::gradient(comma_statement).execute(x, y, &dx, &dy);
  expect_gradient("d comma_statement / dx", dx, x, [&] { return comma_statement(x, y); });
  expect_gradient("d comma_statement / dy", dy, y, [&] { return comma_statement(x, y); });
  dx = 0;
  adjoint::gradient(comma_loop, "x").execute(x, 7, &dx);
  expect_gradient("d comma_loop / dx", dx, x, [&] { return comma_loop(x, 7); });
  return clad_style::report();
}
