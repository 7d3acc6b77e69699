// Corpus: structs whose members are structs (and arrays of them): locals braced at any depth
// (members not given are zero, also when re-declared in a loop), struct results and body_copies
// assigned to members, member chains (`b.pos.x`), member functions of the inner struct, by-value
// and by-reference parameters, a local struct of arrays of structs.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Vec2 {
  double x, y;
  double dot(const Vec2& o) const { return x * o.x + y * o.y; }
};
struct Body {
  Vec2 pos, vel;
  double m;
};
struct World {
  Body bodies[2];
  Vec2 g;
};

static double energy(const Body& b) { return 0.5 * b.m * b.vel.dot(b.vel) + b.pos.y * b.m; }
static Body launched(double a, double b) { return {{a, b}, {b, a}, 1.5}; }
static Vec2 sum(const Vec2& a, const Vec2& b) { return {a.x + b.x, a.y + b.y}; }
static void step(Body& b, double dt) {
  b.pos.x += dt * b.vel.x;
  b.pos.y += dt * b.vel.y;
  b.vel.y -= dt * std::sin(b.pos.y);
}

// Re-declared in a loop, braced empty: every member starts from zero each pass.
double bodies_in_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    Body b{};
    b.pos.x = x[i];
    b.vel.y = x[(i + 1) % n];
    b.m += 1;
    step(b, 0.1);
    s += b.pos.y * b.m + b.vel.x + energy(b);
  }
  return s;
}

// Struct results and body_copies into members; a copy of the whole stepped in place.
double body_copies(const double* x, int) {
  Body b = launched(x[0], x[1]);
  b.vel = sum(b.pos, b.vel);
  Body c = b;
  c.pos = {std::sin(x[2]), x[1] * x[1]};
  for (int k = 0; k < 3; k++) step(c, 0.05);
  return energy(c) + c.pos.x * b.vel.y + c.pos.dot(b.vel);
}

// A struct of an array of structs and a struct; gravity added to each body.
double world_energy(const double* x, int) {
  World w{};
  w.g = {0, -x[1]};
  for (int i = 0; i < 2; i++) {
    w.bodies[i] = launched(x[0] + i, x[1]);
    w.bodies[i].vel = sum(w.bodies[i].vel, w.g);
  }
  Body extra[2] = {{{x[0], x[2]}, {1, 2}, 3}};
  extra[1].pos = w.bodies[0].vel;
  return energy(w.bodies[0]) * w.bodies[1].pos.x + energy(extra[0]) + extra[1].pos.y * extra[1].m;
}

TEST(NestedStructs, bodies_in_loop) { check("bodies_in_loop", adjoint::gradient(bodies_in_loop), bodies_in_loop, In<double>{4}, 4); }
TEST(NestedStructs, body_copies) { check("body_copies", adjoint::gradient(body_copies), body_copies, In<double>{3}, 3); }
TEST(NestedStructs, world_energy) { check("world_energy", adjoint::gradient(world_energy), world_energy, In<double>{3}, 3); }
// By value as a callee: the copy is the callee's own.
static double shifted_energy(Body b, double dx) {
  b.pos.y += dx;
  return energy(b);
}
double body_by_value(const double* x, int) {
  Body b{{x[0], x[1]}, {x[2], x[0]}, x[1]};
  return shifted_energy(b, x[2]) * b.pos.y;
}
TEST(NestedStructs, body_by_value) { check("body_by_value", adjoint::gradient(body_by_value), body_by_value, In<double>{3}, 3); }

// The adjoint of a struct of structs is one of the same type: energy = m |vel|^2 / 2 + pos.y m.
TEST(NestedStructs, parameter) {
  Body b{{0.3, -0.4}, {0.7, 1.1}, 2.0}, db{};
  adjoint::gradient(energy).execute(b, &db);
  EXPECT_NEAR(db.vel.x, b.m * b.vel.x, 1e-12);
  EXPECT_NEAR(db.vel.y, b.m * b.vel.y, 1e-12);
  EXPECT_NEAR(db.pos.y, b.m, 1e-12);
  EXPECT_NEAR(db.pos.x, 0.0, 1e-12);
  EXPECT_NEAR(db.m, 0.5 * (0.49 + 1.21) - 0.4, 1e-12);
}
