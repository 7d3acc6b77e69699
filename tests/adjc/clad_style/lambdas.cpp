// Lambdas without and with captures: requested directly, and called inside differentiated code.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double with_lambda(double x, double y) {
  auto sq = [](double v) { return v * v; };
  return sq(x) * y + sq(y);
}

// Captures of parameters and locals, by reference and by copy, named and implicit.
double with_captures(double x, double y) {
  double k = x * y;
  auto by_reference = [&](double t) { return t * k + y; };
  auto by_copy = [=](double t) { return t * k * x; };
  auto named_copy = [k](double t) { return t - k; };
  auto named_reference = [&k](double t) { return t * t * k; };
  k = k + x;  // the copies keep the old value; the references see the new one
  return by_reference(x) + by_copy(y) * named_copy(x) + named_reference(y);
}

// An init-capture, and a lambda called where it is written.
double with_init_capture(double x, double y) {
  auto f = [s = 2.0 * x](double t) { return s * t * t; };
  return f(y) + [&](double t) { return t * x; }(y);
}

// A lambda accumulating into a by-reference capture.
double with_accumulator(double x, double y) {
  double acc = 0;
  auto add = [&acc](double v) { acc += v * v; };
  for (int i = 1; i <= 3; i++) add(x * i + y);
  return acc;
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
  dx = dy = 0;
  adjoint::gradient(with_captures).execute(x, y, &dx, &dy);
  expect_gradient("d with_captures / dx", dx, x, [&] { return with_captures(x, y); });
  expect_gradient("d with_captures / dy", dy, y, [&] { return with_captures(x, y); });
  dx = dy = 0;
  adjoint::gradient(with_init_capture).execute(x, y, &dx, &dy);
  expect_gradient("d with_init_capture / dx", dx, x, [&] { return with_init_capture(x, y); });
  expect_gradient("d with_init_capture / dy", dy, y, [&] { return with_init_capture(x, y); });
  dx = dy = 0;
  adjoint::gradient(with_accumulator).execute(x, y, &dx, &dy);
  expect_gradient("d with_accumulator / dx", dx, x, [&] { return with_accumulator(x, y); });
  expect_gradient("d with_accumulator / dy", dy, y, [&] { return with_accumulator(x, y); });
  // A capturing lambda requested: derivatives for its parameters, the captures constants.
  double scale = 1.7;
  auto scaled = [&](double t) { return scale * t * t; };
  dx = 0;
  adjoint::gradient(scaled).execute(x, &dx);
  expect_gradient("d scaled lambda / dx", dx, x, [&] { return scaled(x); });
  dx = 0;
  adjoint::gradient([scale](double t) { return t / scale; }).execute(x, &dx);
  expect_gradient("d inline capturing lambda / dx", dx, x, [&] { return x / scale; });
  return clad_style::report();
}
