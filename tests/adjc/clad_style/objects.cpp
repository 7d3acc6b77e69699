// Local objects: a constructor with a member-initialiser list, a member function that mutates the
// object called in a loop, a constructor that computes, copies and assignments of whole structs,
// and a function object called as a temporary.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct Particle {
  double pos, vel;
  Particle(double p, double v) : pos(p), vel(v) {}
  void step(double dt) {
    pos += vel * dt;
    vel *= 0.9;
  }
  double energy() const { return 0.5 * vel * vel + pos * pos; }
};
struct Rescaled {
  double value, scale;
  explicit Rescaled(double v) : value(v * 2), scale(value + 1) { value *= scale; }
};
template <class T>
struct Scaler {
  T k;
  T operator()(T x) const { return k * x * x; }
};

double simulate(double p0, double v0) {
  Particle q(p0, v0);
  for (int i = 0; i < 5; i++) q.step(0.1 * (i + 1));
  Particle c = q;
  c.step(0.5);
  return c.energy() + q.pos;
}
double rescaled(double a, double b) {
  Rescaled r(a * b);
  return r.value + r.scale * b;
}
float scaled(float x, float y) { return x * y + Scaler<float>{2.f}(x); }

int main() {
  double p = 0.3, v = 1.2, dp = 0, dv = 0;
  adjoint::gradient(simulate).execute(p, v, &dp, &dv);
  expect_gradient("d simulate / dp", dp, p, [&] { return simulate(p, v); });
  expect_gradient("d simulate / dv", dv, v, [&] { return simulate(p, v); });
  double a = 0.6, b = -1.1, da = 0, db = 0;
  adjoint::gradient(rescaled).execute(a, b, &da, &db);
  expect_gradient("d rescaled / da", da, a, [&] { return rescaled(a, b); });
  expect_gradient("d rescaled / db", db, b, [&] { return rescaled(a, b); });
  float x = 0.5f, y = 1.5f, dx = 0, dy = 0;
  adjoint::gradient(scaled).execute(x, y, &dx, &dy);
  expect_gradient("d scaled / dx", dx, x, [&] { return scaled(x, y); });
  expect_gradient("d scaled / dy", dy, y, [&] { return scaled(x, y); });
  return clad_style::report();
}
