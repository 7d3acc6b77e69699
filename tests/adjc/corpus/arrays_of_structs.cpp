// Corpus: local arrays of structs of numbers: one region each, like an array of numbers —
// declared empty or braced (`{{a, b}, S{c, d}, other}`, member initialisers for the rest), in
// loops, 2-D, const; elements read and written by member, copied whole, passed to callees as
// `S*` and `const S&`, iterated by range-for, and overwritten in place (the tape).
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Particle {
  double x, v;
};
struct Spring {
  double k = 1.5, rest;  // a member initialiser: elements not given start from it
};
struct Cell {
  float w[2];
  float bias;
};

static void step(Particle* ps, int n, double dt) {
  for (int i = 0; i < n; i++) {
    ps[i].x += dt * ps[i].v;
    ps[i].v -= dt * std::sin(ps[i].x);
  }
}
static double kinetic(const Particle& p) { return 0.5 * p.v * p.v; }
static Particle launch(double x, double v) { return {x * v, x - v}; }

// Filled in a loop, stepped in place by a callee, then copied and swapped.
double simulate(const double* x, int n) {
  Particle ps[3];
  for (int i = 0; i < 3; i++) ps[i] = launch(x[i], x[(i + 1) % n]);
  for (int k = 0; k < 4; k++) step(ps, 3, 0.1);
  Particle first = ps[0];
  ps[0] = ps[2];
  ps[2] = first;
  double e = 0;
  for (const Particle& p : ps) e += kinetic(p) + p.x * ps[0].v;
  return e;
}

// Braced with fewer elements than the array: the rest from the member initialiser; const tables.
double springs(const double* x, int n) {
  const Spring table[2] = {{2.0, 0.5}, {3.0, 1.0}};
  Spring s[3] = {{x[0], x[1]}, Spring{x[2] * x[2], 0.25}};
  double e = 0;
  for (int i = 0; i < n; i++) {
    const double d = x[i] - s[i % 3].rest - table[i % 2].rest;
    e += 0.5 * s[i % 3].k * table[i % 2].k * d * d;
  }
  return e;
}

// Declared inside a loop (re-zeroed each pass), 2-D, with an array member, updated by range-for.
float cells(const float* x, int n) {
  float r = 0;
  for (int i = 0; i < n; i++) {
    Cell c[2][2] = {{{{x[i], 0.5f}, x[(i + 1) % n]}}};
    for (auto& row : c)
      for (Cell& cell : row) cell.w[1] = cell.w[1] * x[i] + cell.bias;
    c[1][0].bias = c[0][0].w[0] * c[0][0].w[1];
    r += c[0][0].w[1] * c[1][0].bias + c[1][1].w[1] + std::exp(c[0][0].bias);
  }
  return r;
}

TEST(ArraysOfStructs, simulate) { check("simulate", adjoint::gradient(simulate), simulate, In<double>{4}, 4); }
TEST(ArraysOfStructs, springs) { check("springs", adjoint::gradient(springs), springs, In<double>{5}, 5); }
TEST(ArraysOfStructs, cells) { check("cells", adjoint::gradient(cells), cells, In<float>{3}, 3); }
