// Function objects: a functor's operator() requested through the object, and called inside
// differentiated code. A request naming the object binds it (execute may leave it out, as Clad's
// does); without a list the object is differentiated too, and its adjoint may be left out.
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
class Experiment {
  double x, y;  // private, as in Clad's tests

 public:
  Experiment(double p_x = 0, double p_y = 0) : x(p_x), y(p_y) {}
  double operator()(double i, double j) { return x * i * j + y * i; }
  double& at(int k) { return k == 0 ? x : y; }
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
  // Bound: execute(i, j, &d_E, &di, &dj) and execute(i, j, &di, &dj); the object as it is when
  // execute runs.
  Experiment E(3, 5), d_E;
  double i = 7, j = 9, di = 0, dj = 0;
  auto E_grad = adjoint::gradient(E);
  E_grad.execute(i, j, &d_E, &di, &dj);
  expect_gradient("d E / di (bound)", di, i, [&] { return E(i, j); });
  expect_gradient("d E / dj (bound)", dj, j, [&] { return E(i, j); });
  expect_gradient("d E / dx (bound, private member)", d_E.at(0), E.at(0), [&] { return E(i, j); });
  expect_gradient("d E / dy (bound, private member)", d_E.at(1), E.at(1), [&] { return E(i, j); });
  E.at(0) = 6;
  di = dj = 0;
  E_grad.execute(i, j, &di, &dj);
  expect_gradient("d E / di (bound, changed, no object adjoint)", di, i, [&] { return E(i, j); });
  expect_gradient("d E / dj (bound, changed, no object adjoint)", dj, j, [&] { return E(i, j); });
  return clad_style::report();
}
