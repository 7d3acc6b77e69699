// Lambdas that capture other lambdas with captures of their own, by reference and by copy, one,
// two and three levels deep, and a request of such a lambda.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

// The captured lambda writes a parameter it captures by reference; each call sees the last write.
double grows(double x, double y) {
  auto grow = [&x] {
    x *= 1.5;
    return x * x;
  };
  auto twice = [&grow, y] { return grow() * y + grow(); };
  double first = twice();
  return first + twice();
}

// A copy of a lambda that only reads its copies, called next to a capture of its own.
double copied(double x, double y) {
  auto scale = [k = 2 * y](double v) { return k * std::sin(v); };
  auto apply = [scale, x] { return scale(x) * x; };
  return apply() + scale(y);
}

// Three levels, the middle one declared inside the outer lambda, with `[&]`.
double layered(double x, double y) {
  auto base = [&x] { return std::exp(0.5 * x); };
  auto outer = [&] {
    auto middle = [&base, y](double v) { return base() * v * y; };
    return middle(x) + middle(y);
  };
  return outer() * base();
}

// Indices computed by a captured lambda, as in a dot product over a strided view.
double strided(double x, double y) {
  double w[6] = {x, 1, y, 2, x * y, 3};
  int stride = 2;
  auto at = [&](int c) { return c * stride; };
  auto dot = [&]() {
    double s = 0;
    for (int c = 0; c < 3; c++) s += w[at(c)] * w[at(c) + 1];
    return s;
  };
  return dot() * x;
}

int main() {
  const double x = 0.7, y = -1.2;
  clad_style::expect_gradients("grows", grows, clad::gradient(grows), x, y);
  clad_style::expect_gradients("copied", copied, clad::gradient(copied), x, y);
  clad_style::expect_gradients("layered", layered, clad::gradient(layered), x, y);
  clad_style::expect_gradients("strided", strided, clad::gradient(strided), x, y);

  // A request of a lambda that captures one: the captures are constants.
  double w = 1.8;
  auto power = [&w](double v) { return w * v * v * v; };
  auto energy = [&power, w](double v) { return power(v) + w * v; };
  double v = 0.9, dv = 0;
  clad::gradient(energy).execute(v, &dv);
  expect_gradient("request: dv", dv, v, [&] { return energy(v); });
  return clad_style::report();
}
