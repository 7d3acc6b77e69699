// std::pair of numbers: parameters, locals, results and make_pair; its adjoint is a pair too.
#include <adjoint/ad.hpp>

#include <utility>

#include "check.hpp"

using clad_style::expect_gradient;
using pairdd = std::pair<double, double>;

double sum(pairdd p) { return p.first * p.first + 3 * p.second; }
double weighted(const pairdd& p, double w) { return (p.first - p.second) * w; }
pairdd make(double a, double b) { return {a * b, a + b}; }
double product_of_made(double x, double y) {
  pairdd p = make(x, y);
  return p.first * p.second;
}
double locals(double x, double y) {
  pairdd p(x, y);
  pairdd q = {y, 2.0};
  pairdd r;
  r = p;
  p.first *= q.second;
  return p.first * q.first + r.second * x;
}
double made_pair(double x, double y) {
  auto p = std::make_pair(x, y * y);
  return p.first * p.second;
}
pairdd made(double a, double b) { return std::make_pair(a * b, b); }
double assigned_and_passed(double x, double y) {
  pairdd p;
  p = std::make_pair(x, y);
  pairdd q = made(p.second, p.first);
  return sum(std::make_pair(q.first, x)) + sum({y, p.first}) + sum(pairdd(q.second, y));
}
std::pair<float, int> scaled(float a) { return {a * 2, 3}; }
float mixed(float x, float y) {
  std::pair<float, int> p = scaled(x);
  return p.first * float(p.second) * y;
}
void scale_first(pairdd& p, double v) { p.first *= v; }
double through_reference(double x, double y) {
  pairdd p{x, y};
  scale_first(p, x);
  return p.first + p.second * p.first;
}

int main() {
  pairdd p{1.5, -0.5}, dp{};
  adjoint::gradient(sum).execute(p, &dp);
  expect_gradient("d sum / d first", dp.first, p.first, [&] { return sum(p); });
  expect_gradient("d sum / d second", dp.second, p.second, [&] { return sum(p); });
  double w = 0.75, dw = 0;
  dp = {};
  adjoint::gradient(weighted).execute(p, w, &dp, &dw);
  expect_gradient("d weighted / d first", dp.first, p.first, [&] { return weighted(p, w); });
  expect_gradient("d weighted / d w", dw, w, [&] { return weighted(p, w); });
  double x = 0.7, y = -1.3, dx = 0, dy = 0;
  auto check = [&](const char* name, auto f, auto g) {
    dx = dy = 0;
    g.execute(x, y, &dx, &dy);
    std::printf("%s\n", name);
    expect_gradient("  dx", dx, x, [&] { return f(x, y); });
    expect_gradient("  dy", dy, y, [&] { return f(x, y); });
  };
  check("product_of_made", product_of_made, adjoint::gradient(product_of_made));
  check("locals", locals, adjoint::gradient(locals));
  check("made_pair", made_pair, adjoint::gradient(made_pair));
  check("through_reference", through_reference, adjoint::gradient(through_reference));
  check("assigned_and_passed", assigned_and_passed, adjoint::gradient(assigned_and_passed));
  float fx = 0.5f, fy = 2.0f, dfx = 0, dfy = 0;
  adjoint::gradient(mixed).execute(fx, fy, &dfx, &dfy);
  expect_gradient("d mixed / dx", dfx, fx, [&] { return mixed(fx, fy); });
  expect_gradient("d mixed / dy", dfy, fy, [&] { return mixed(fx, fy); });
  return clad_style::report();
}
