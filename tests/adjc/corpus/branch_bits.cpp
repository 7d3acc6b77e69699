// Corpus: branch bits. An `if` directly in the body of a jump-free counted loop records its
// direction as one bit per iteration in 64-bit words (pushed every 64 iterations, the last partial
// word after the loop) instead of a bool per iteration. Trip counts around the word size (0, 1,
// 63, 64, 65, 128, 130) are each checked against finite differences.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// Both branches do work.
void leaky_square(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (x[i] > 0) y[i] = x[i] * x[i];
    else y[i] = 0.5 * x[i] * x[i] * x[i];
  }
}
// A running maximum: the branch overwrites the accumulator.
double running_max(const double* x, int n) {
  double m = -10;
  for (int i = 0; i < n; i++)
    if (x[i] > m) m = x[i];
  return m * m;
}
// Two branches in one iteration, the second reading what the first wrote.
void two_branches(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    double t = x[i];
    if (t < 0) t = t * t;
    if (x[i] > 0.5) t = std::sin(t);
    y[i] = t * x[i];
  }
}
// A branch inside a branch keeps bools (only the outer one is directly in the loop body).
void nested(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] > 0) {
      if (x[i] > 0.5) y[i] = x[i] * x[i];
      else y[i] = std::exp(x[i]);
    }
}

const int sizes[] = {0, 1, 63, 64, 65, 128, 130};

TEST(BranchBits, leaky_square) {
  auto g = adjoint::gradient(leaky_square);
  for (int n : sizes) check("leaky_square", g, leaky_square, Out<double>{size_t(n)}, In<double>{size_t(n)}, n);
  EXPECT_EQ(occurrences(g.source(), "pop_branch"), 0) << g.source();
}
TEST(BranchBits, running_max) {
  auto g = adjoint::gradient(running_max);
  for (int n : sizes) check("running_max", g, running_max, In<double>{size_t(n)}, n);
  EXPECT_EQ(occurrences(g.source(), "pop_branch"), 0) << g.source();
}
TEST(BranchBits, two_branches) {
  auto g = adjoint::gradient(two_branches);
  for (int n : sizes) check("two_branches", g, two_branches, Out<double>{size_t(n)}, In<double>{size_t(n)}, n);
  EXPECT_EQ(occurrences(g.source(), "pop_branch"), 0) << g.source();
}
TEST(BranchBits, nested) {
  auto g = adjoint::gradient(nested);
  for (int n : sizes) check("nested", g, nested, Out<double>{size_t(n)}, In<double>{size_t(n)}, n);
  EXPECT_EQ(occurrences(g.source(), "pop_branch"), 1) << g.source();
}
