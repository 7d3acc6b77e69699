// Corpus: local structs with an array member, filled in a loop, read and updated as a local array,
// and copied (`S t = s;`: the array member element by element; it was rejected as an unsupported
// initialiser, reported at the copied struct's declaration). (Found by tests/adjc/fuzz.)
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Cell {
  double a, b;
  double v[3];
};

void copied(double* y, const double* x, const double* c, int n) {
  Cell s = {x[0], c[1], {}};
  for (int k = 0; k < 3; k++) s.v[k] = x[k] * c[0];
  Cell t = s;
  for (int i = 0; i < n; i++) {
    t.v[i % 3] = t.v[i % 3] * s.v[(i + 1) % 3] + t.a;
    s.a += std::sin(t.v[i % 3]);
    y[i] += t.v[i % 3] * s.b + s.a;
  }
}
float in_loop(const float* x, int n) {
  float r = 0;
  for (int i = 0; i < n; i++) {
    Cell s = {x[i], 0.5, {}};
    for (int k = 0; k < 3; k++) s.v[k] = x[(i + k) % n] * s.a;
    Cell t = s;
    t.v[1] = t.v[1] * t.v[2];
    r += t.v[0] + t.v[1] * s.v[2];
  }
  return r;
}

TEST(LocalStructArrays, copied) {
  check("copied", adjoint::gradient(copied), copied, InOut<double>{5}, In<double>{5}, In<double>{2}, 5);
}
TEST(LocalStructArrays, copied_in_loop) {
  check("in_loop", adjoint::gradient(in_loop), in_loop, In<float>{4}, 4);
}
