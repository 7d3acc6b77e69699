// Local objects built by constructors with member-initialiser lists, and by braces.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct Complex {
  double re, im;
  Complex(double r, double i) : re(r), im(i) {}
};
struct Line {
  double slope = 1, offset = 0;
};

double modulus2(double a, double b) {
  Complex z(a * b, a - b);
  Complex w{b, 2.0};
  return z.re * z.re + z.im * z.im + w.re * w.im * a;
}
double line_at(double x, double m) {
  Line l;
  Line k = {m, 0.5};
  l.offset = m * m;
  return l.slope * x + l.offset + k.slope * k.offset * x;
}

int main() {
  double a = 0.9, b = -0.4, da = 0, db = 0;
  adjoint::gradient(modulus2).execute(a, b, &da, &db);
  expect_gradient("d modulus2 / da", da, a, [&] { return modulus2(a, b); });
  expect_gradient("d modulus2 / db", db, b, [&] { return modulus2(a, b); });
  double x = 1.5, m = 0.3, dx = 0, dm = 0;
  adjoint::gradient(line_at).execute(x, m, &dx, &dm);
  expect_gradient("d line_at / dx", dx, x, [&] { return line_at(x, m); });
  expect_gradient("d line_at / dm", dm, m, [&] { return line_at(x, m); });
  return clad_style::report();
}
