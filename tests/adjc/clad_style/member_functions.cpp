// Gradients of member functions (`&S::f`): the object is passed first, by pointer or by reference;
// without a parameter list the object is differentiated too, and its adjoint may be left out.
// Members may be private, as in Clad's own tests.
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

class SimpleFunctions {
 public:
  SimpleFunctions(double p_x = 0, double p_y = 0) : x(p_x), y(p_y) {}
  double mem_fn(double i, double j) { return (x + y) * i + i * j * x; }
  double const_mem_fn(double i, double j) const { return scaled(i) * j + y * y; }

 private:
  double x, y;
  double scaled(double i) const { return x * i; }

 public:
  double& get_x() { return x; }
  double& get_y() { return y; }
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
  // Private members; no list: the object's adjoint comes first among the adjoints (as Clad's).
  SimpleFunctions sf(1.5, -0.5), d_sf;
  double i = 0.7, j = 2.5, di = 0, dj = 0;
  adjoint::gradient(&SimpleFunctions::mem_fn).execute(sf, i, j, &d_sf, &di, &dj);
  expect_gradient("d mem_fn / di", di, i, [&] { return sf.mem_fn(i, j); });
  expect_gradient("d mem_fn / dj", dj, j, [&] { return sf.mem_fn(i, j); });
  expect_gradient("d mem_fn / dx (private)", d_sf.get_x(), sf.get_x(), [&] { return sf.mem_fn(i, j); });
  expect_gradient("d mem_fn / dy (private)", d_sf.get_y(), sf.get_y(), [&] { return sf.mem_fn(i, j); });
  // Through a member function pointer variable, as Clad's UserDefinedTypes.C requests it.
  auto mem_fn_pointer = &SimpleFunctions::mem_fn;
  SimpleFunctions d_sf3;
  double di3 = 0, dj3 = 0;
  adjoint::gradient(mem_fn_pointer).execute(sf, i, j, &d_sf3, &di3, &dj3);
  expect_gradient("d mem_fn / di (through a member pointer)", di3, i, [&] { return sf.mem_fn(i, j); });
  expect_gradient("d mem_fn / dx (through a member pointer)", d_sf3.get_x(), sf.get_x(),
                  [&] { return sf.mem_fn(i, j); });
  // The object's adjoint left out: a zeroed one is used and dropped.
  di = dj = 0;
  auto const_grad = adjoint::gradient(&SimpleFunctions::const_mem_fn);
  const_grad.execute(&sf, i, j, &di, &dj);
  expect_gradient("d const_mem_fn / di (no object adjoint)", di, i, [&] { return sf.const_mem_fn(i, j); });
  expect_gradient("d const_mem_fn / dj (no object adjoint)", dj, j, [&] { return sf.const_mem_fn(i, j); });
  SimpleFunctions d_sf2;
  di = dj = 0;
  const_grad.execute(sf, i, j, &d_sf2, &di, &dj);
  expect_gradient("d const_mem_fn / dx (private, through a private member function)", d_sf2.get_x(), sf.get_x(),
                  [&] { return sf.const_mem_fn(i, j); });
  expect_gradient("d const_mem_fn / dy", d_sf2.get_y(), sf.get_y(), [&] { return sf.const_mem_fn(i, j); });
  return clad_style::report();
}
