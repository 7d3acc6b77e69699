// Function objects: a functor's operator() requested through the object, and called inside
// differentiated code.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct Gaussian {
  double center, width;
  double operator()(double x) const {
    double d = (x - center) / width;
    return d * d;
  }
};
struct Product {
  double operator()(double x, double y) const { return x * y * y; }
};
double use_functor(double x, double y) {
  Product p;
  return p(x, y) + p(y, x);
}

int main() {
  Gaussian g{0.5, 2};
  double x = 1.7, dx = 0;
  adjoint::gradient(g, "x").execute(&g, x, &dx);
  expect_gradient("d gaussian / dx", dx, x, [&] { return g(x); });
  Product p;
  double y = -0.6, dy = 0;
  dx = 0;
  adjoint::gradient(p).execute(&p, x, y, &dx, &dy);
  expect_gradient("d product / dx", dx, x, [&] { return p(x, y); });
  expect_gradient("d product / dy", dy, y, [&] { return p(x, y); });
  dx = dy = 0;
  adjoint::gradient(use_functor).execute(x, y, &dx, &dy);
  expect_gradient("d use_functor / dx", dx, x, [&] { return use_functor(x, y); });
  expect_gradient("d use_functor / dy", dy, y, [&] { return use_functor(x, y); });
  return clad_style::report();
}
