// Gradients of member functions (`&S::f`): the object is passed first, by pointer or by reference.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

class Polynomial {
 public:
  double a, b, c;
  double eval(double x) const { return (a * x + b) * x + c; }
  double eval_sq(double x) const { return eval(x) * eval(x); }
  static double twice(double x) { return 2 * x * x; }
};

int main() {
  Polynomial p{0.5, -1.5, 2};
  double x = 0.8, dx = 0;
  adjoint::gradient(&Polynomial::eval, "x").execute(&p, x, &dx);
  expect_gradient("d eval / dx", dx, x, [&] { return p.eval(x); });
  dx = 0;
  Polynomial dp{};
  adjoint::gradient(&Polynomial::eval_sq, "this, x").execute(&p, x, &dp, &dx);
  expect_gradient("d eval_sq / dx", dx, x, [&] { return p.eval_sq(x); });
  expect_gradient("d eval_sq / da", dp.a, p.a, [&] { return p.eval_sq(x); });
  expect_gradient("d eval_sq / dc", dp.c, p.c, [&] { return p.eval_sq(x); });
  // The object may also be passed by reference, as Clad's execute takes it.
  dx = 0;
  Polynomial dq{};
  adjoint::gradient(&Polynomial::eval_sq, "this, x").execute(p, x, &dq, &dx);
  expect_gradient("d eval_sq / dx (object by reference)", dx, x, [&] { return p.eval_sq(x); });
  expect_gradient("d eval_sq / db (object by reference)", dq.b, p.b, [&] { return p.eval_sq(x); });
  dx = 0;
  adjoint::gradient(&Polynomial::twice).execute(x, &dx);
  expect_gradient("d twice / dx", dx, x, [&] { return Polynomial::twice(x); });
  return clad_style::report();
}
