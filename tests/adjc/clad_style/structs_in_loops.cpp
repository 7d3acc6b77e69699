// Local structs declared and initialised inside loops, and arrays of structs.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

struct State {
  double pos, vel;
};
struct Sample {
  double x, weight;
};

double simulate(double v0, double k, int steps) {
  State s = {0, v0};
  for (int i = 0; i < steps; i++) {
    State next = {s.pos + 0.1 * s.vel, s.vel - 0.1 * k * s.pos};
    s.pos = next.pos;
    s.vel = next.vel;
  }
  return s.pos;
}
double weighted_mean(const Sample* samples, int n) {
  double num = 0, den = 0;
  for (int i = 0; i < n; i++) {
    Sample s = samples[i];
    num += s.x * s.weight;
    den += s.weight;
  }
  return num / den;
}

int main() {
  double v0 = 1.3, k = 0.8, dv0 = 0, dk = 0;
  adjoint::gradient(simulate, "v0, k").execute(v0, k, 6, &dv0, &dk);
  expect_gradient("d simulate / dv0", dv0, v0, [&] { return simulate(v0, k, 6); });
  expect_gradient("d simulate / dk", dk, k, [&] { return simulate(v0, k, 6); });
  Sample s[3] = {{0.5, 1}, {1.5, 2}, {-1, 0.5}}, ds[3] = {};
  adjoint::gradient(weighted_mean, "samples").execute(s, 3, ds);
  for (int i = 0; i < 3; i++) {
    expect_gradient("d weighted_mean / dx[i]", ds[i].x, s[i].x, [&] { return weighted_mean(s, 3); });
    expect_gradient("d weighted_mean / dweight[i]", ds[i].weight, s[i].weight, [&] { return weighted_mean(s, 3); });
  }
  return clad_style::report();
}
