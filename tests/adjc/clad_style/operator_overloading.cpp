// User-defined operators on a struct of numbers, free and member, returning it by value.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct V3 {
  double x, y, z;
  V3 operator-(const V3& o) const { return V3{x - o.x, y - o.y, z - o.z}; }
  double dot(const V3& o) const { return x * o.x + y * o.y + z * o.z; }
};
V3 operator+(const V3& a, const V3& b) { return V3{a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator*(double s, const V3& a) { return V3{s * a.x, s * a.y, s * a.z}; }
double dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

double energy(double s, double t) {
  V3 a{s, 2 * s, t};
  V3 b{t, s * t, 1.0};
  V3 c = a + s * b;
  return dot(c, c);
}
double distance2(double s, double t) {
  V3 a{s, t, s * t};
  V3 b = {t, 1.0, s};
  V3 d = a - b;
  return d.dot(d) + (a + b).dot(a);
}

int main() {
  double s = 0.7, t = -0.4, ds = 0, dt = 0;
  adjoint::gradient(energy).execute(s, t, &ds, &dt);
  expect_gradient("d energy / ds", ds, s, [&] { return energy(s, t); });
  expect_gradient("d energy / dt", dt, t, [&] { return energy(s, t); });
  ds = dt = 0;
  adjoint::gradient(distance2).execute(s, t, &ds, &dt);
  expect_gradient("d distance2 / ds", ds, s, [&] { return distance2(s, t); });
  expect_gradient("d distance2 / dt", dt, t, [&] { return distance2(s, t); });
  return clad_style::report();
}
