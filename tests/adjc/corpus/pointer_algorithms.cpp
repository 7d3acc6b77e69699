// Corpus: std::fill, std::fill_n, std::copy and std::copy_n on pointers to numbers and local
// arrays, as statements: each is the element loop it stands for, so the elements it overwrites
// are taped like any assignment's (a fill of a buffer read before, a copy shifting an array left).
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// Copies into an output, fills a scratch buffer with a computed value, overwrites part of y.
void staged(double* y, const double* x, int n) {
  double scratch[4];
  std::fill(scratch, scratch + 4, x[0] * x[1]);
  std::copy(x, x + n, y);
  for (int i = 0; i < n; i++) y[i] = y[i] * scratch[i % 4] + std::sin(y[i]);
  std::fill_n(y + 1, 2, x[2]);
  std::copy_n(y, 2, scratch);
  y[0] += scratch[1] * scratch[0];
}

// A shift left within one array and a fill over values read before (both destroy values the
// reverse sweep needs); int buffers are filled too (no derivative).
float shifted(const float* x, int n) {
  float w[6];
  int pick[6];
  std::fill(pick, pick + 6, 2);
  std::copy(x, x + 3, w);
  std::copy(x, x + 3, w + 3);
  float s = w[0] * w[4];
  std::copy(w + 1, w + 6, w);
  s += w[0] * w[1];
  std::fill(w + 2, w + 4, s * 0.5f);
  for (int i = 0; i < 5; i++) s += w[i] * w[pick[i]] + 0.1f * float(n);
  return s;
}

TEST(PointerAlgorithms, staged) { check("staged", adjoint::gradient(staged), staged, InOut<double>{5}, In<double>{5}, 5); }
TEST(PointerAlgorithms, shifted) { check("shifted", adjoint::gradient(shifted), shifted, In<float>{3}, 3); }
