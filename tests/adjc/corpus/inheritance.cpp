// Corpus: structs with public non-virtual base classes used as whole values — derived structs
// returned, copied and assigned (inherited members included), passed by value, reference and
// pointer to functions taking the base, written through a base reference by a callee, changed in
// a loop by inherited member functions and operators, built by constructors with base
// initialisers, and bound by structured bindings. Each gradient against central differences.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace inheritance {

struct Position {
  double x, y;
  void move(double dx, double dy) {
    x += dx;
    y += dy;
  }
  double dist2() const { return x * x + y * y; }
};
struct Body : Position {
  double mass;
  double momentum_like() const { return mass * (x + y); }
  void fall(double dt) {
    move(dt, 0);
    this->y -= 0.5 * mass * dt * dt;
  }
};
struct Tag {
  double weight;
};
struct Tagged : Body, Tag {
  Tagged(double px, double py, double m, double w) : Body{{px, py}, m}, Tag{w} {}
};
struct Charge {
  double q;
  explicit Charge(double v) : q(v * 2) { q += 1; }
};
struct Charged : Position, Charge {
  double k;
  Charged(double a, double b) : Position{a, b}, Charge(a * b), k(b) {}
};

Body make(double a, double b) {
  Body r{{a, b}, a * b};
  r.x = std::sin(r.x);
  return r;
}
Body operator+(const Body& a, const Body& b) { return Body{{a.x + b.x, a.y + b.y}, a.mass + b.mass}; }
double dist2_of(const Position& p) { return p.x * p.x + p.y * p.y; }
double x_of(const Position* p) { return p->x; }
void scale(Position& p, double k) {
  p.x *= k;
  p.y *= k;
}
double changed_by_value(Body b, double k) {
  b.fall(k);
  b.mass *= k;
  return b.momentum_like() + b.x;
}

double values(double a, double b) {
  Body u = make(a, b);
  Body v{{b, a}, 2.0};
  Body w = u + v;
  Body c = w;
  c = v;
  scale(w, a);
  return w.x * c.y + dist2_of(u) + x_of(&v) * w.mass + changed_by_value(u, b);
}
double in_loop(double a, double b) {
  Body p{{a, b}, 1.5};
  double total = 0;
  for (int i = 0; i < 4; i++) {
    p.fall(0.1 * b);
    p.move(a, -a);
    total += p.dist2() * p.momentum_like();
  }
  return total;
}
double constructors(double a, double b) {
  Tagged t(a, b, a * b, 0.5);
  t.fall(b);
  Charged c(a, b);
  return t.momentum_like() * t.weight + c.q * c.k + c.x * c.y;
}
double bound(double a, double b) {
  Body p{{a, b}, 3.0};
  const Position& seen = p;
  auto [x, y] = seen;
  Position& base = p;
  auto& [rx, ry] = base;
  rx *= y;
  return x * ry + p.x * p.mass;
}
}  // namespace inheritance

using namespace inheritance;

TEST(Inheritance, values) { check("values", adjoint::gradient(values), values, Scalar<double>{}, Scalar<double>{}); }
TEST(Inheritance, in_loop) {
  check("in_loop", adjoint::gradient(in_loop), in_loop, Scalar<double>{}, Scalar<double>{});
}
TEST(Inheritance, constructors) {
  check("constructors", adjoint::gradient(constructors), constructors, Scalar<double>{}, Scalar<double>{});
}
TEST(Inheritance, bound) { check("bound", adjoint::gradient(bound), bound, Scalar<double>{}, Scalar<double>{}); }
