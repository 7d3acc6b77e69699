// Public non-virtual base classes: inherited members read and written, base member functions
// called on a derived object, derived-to-base conversions, base initialisers, aggregate
// initialisation of a derived struct, and requests on derived objects and their member functions.
// The adjoint of a derived struct is a struct of the same type, its inherited members included.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;
using clad_style::expect_gradients;

struct Point {
  double x;
  double scaled(double k) const { return x * k; }
  void shift(double d) { x += d; }
};
struct Weighted : Point {
  double w;
  double energy() const { return x * x * w + scaled(w); }
  void grow(double v) {
    this->x *= v;
    w += x;
  }
};
struct Built : Point {
  double y;
  Built(double a, double b) : Point{a * b}, y(b) {}
};
struct Offset {
  double z;
};
struct Both : Point, Offset {
  double k;
};
struct Deeper : Weighted {
  double extra;
};

double norm2(const Point& p) { return p.x * p.x; }
double thrice(const Point* p) { return 3 * p->x; }

double read_inherited(double a, double b) {
  Weighted d{{a}, b};
  return d.x * d.w;
}
double write_inherited(double a, double b) {
  Weighted d{{a}, b};
  d.x = d.x * b;
  d.w += a;
  return d.x + d.w * d.x;
}
double base_function(double a, double b) {
  Weighted d{{a}, b};
  d.shift(b);
  return d.scaled(b) + d.energy();
}
double converted(double a, double b) {
  Weighted d{{a * b}, b};
  return norm2(d) + thrice(&d) * d.w;
}
double base_initialiser(double a, double b) {
  Built c(a, b);
  return c.x * c.y + c.y;
}
double two_bases(double a, double b) {
  Both m{{a}, {b}, a * b};
  m.z *= m.x;
  return m.x * m.z + m.k;
}
double two_levels(double a, double b) {
  Deeper d{{{a}, b}, a + b};
  d.grow(b);
  return d.energy() * d.extra;
}
double parameter(const Weighted& d, double v) { return d.energy() * v + d.x; }

int main() {
  double x = 0.7, y = -1.3;
  expect_gradients("read_inherited", read_inherited, adjoint::gradient(read_inherited), x, y);
  expect_gradients("write_inherited", write_inherited, adjoint::gradient(write_inherited), x, y);
  expect_gradients("base_function", base_function, adjoint::gradient(base_function), x, y);
  expect_gradients("converted", converted, adjoint::gradient(converted), x, y);
  expect_gradients("base_initialiser", base_initialiser, adjoint::gradient(base_initialiser), x, y);
  expect_gradients("two_bases", two_bases, adjoint::gradient(two_bases), x, y);
  expect_gradients("two_levels", two_levels, adjoint::gradient(two_levels), x, y);

  // A derived struct as a parameter: its adjoint holds the inherited member's too.
  Weighted d{{0.4}, 1.5}, dd{};
  double v = 0.9, dv = 0;
  adjoint::gradient(parameter).execute(d, v, &dd, &dv);
  std::printf("parameter\n");
  expect_gradient("  d x (inherited)", dd.x, d.x, [&] { return parameter(d, v); });
  expect_gradient("  d w", dd.w, d.w, [&] { return parameter(d, v); });
  expect_gradient("  d v", dv, v, [&] { return parameter(d, v); });

  // A request on a member function of the derived struct, and on the base's through it.
  Weighted de{};
  adjoint::gradient(&Weighted::energy, "this").execute(&d, &de);
  std::printf("Weighted::energy\n");
  expect_gradient("  d x (inherited)", de.x, d.x, [&] { return d.energy(); });
  expect_gradient("  d w", de.w, d.w, [&] { return d.energy(); });
  Point dp{};
  double k = 2.5, dk = 0;
  adjoint::gradient(&Point::scaled, "this, k").execute(&d, k, &dp, &dk);
  std::printf("Point::scaled on a Weighted\n");
  expect_gradient("  d x", dp.x, d.x, [&] { return d.scaled(k); });
  expect_gradient("  d k", dk, k, [&] { return d.scaled(k); });
  return clad_style::report();
}
