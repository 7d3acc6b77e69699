// Lambdas without captures: requested directly, and called inside differentiated code.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double with_lambda(double x, double y) {
  auto sq = [](double v) { return v * v; };
  return sq(x) * y + sq(y);
}

int main() {
  auto f = [](double x, double y) { return x * x * y + y; };
  double x = 0.9, y = 1.3, dx = 0, dy = 0;
  adjoint::gradient(f).execute(x, y, &dx, &dy);
  expect_gradient("d lambda / dx", dx, x, [&] { return f(x, y); });
  expect_gradient("d lambda / dy", dy, y, [&] { return f(x, y); });
  dx = 0;
  adjoint::gradient([](double v) { return v * v * v; }).execute(x, &dx);
  expect_gradient("d inline lambda / dx", dx, x, [&] { return x * x * x; });
  dx = dy = 0;
  adjoint::gradient(with_lambda).execute(x, y, &dx, &dy);
  expect_gradient("d with_lambda / dx", dx, x, [&] { return with_lambda(x, y); });
  expect_gradient("d with_lambda / dy", dy, y, [&] { return with_lambda(x, y); });
  return clad_style::report();
}
