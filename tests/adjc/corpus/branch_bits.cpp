// Corpus: branch bits. An `if` directly in the body of a jump-free counted loop records its
// direction as one bit per iteration in 64-bit words (pushed every 64 iterations, the last partial
// word after the loop) instead of a bool per iteration. Trip counts around the word size (0, 1,
// 63, 64, 65, 128, 130) are each checked against finite differences. When the branch is the loop's
// only reverse work, the reverse loop visits just the set bits (`highest_bit`).
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
// The branch is the loop's only reverse work, with a recomputed local pointer and a taped
// overwrite: the reverse visits only the iterations that took it.
double clipped_product(const double* x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++) {
    const double* xi = x + i;
    if (xi[0] > 0.25) p = p * (2 * xi[0]);
  }
  return p;
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
  EXPECT_EQ(occurrences(g.source(), "highest_bit"), 0) << g.source();  // both branches have work
}
TEST(BranchBits, running_max) {
  auto g = adjoint::gradient(running_max);
  for (int n : sizes) check("running_max", g, running_max, In<double>{size_t(n)}, n);
  EXPECT_EQ(occurrences(g.source(), "pop_branch"), 0) << g.source();
  EXPECT_EQ(occurrences(g.source(), "highest_bit"), 1) << g.source();
}
TEST(BranchBits, clipped_product) {
  auto g = adjoint::gradient(clipped_product);
  for (int n : sizes) check("clipped_product", g, clipped_product, In<double>{size_t(n), 0, 0.7}, n);
  EXPECT_EQ(occurrences(g.source(), "highest_bit"), 1) << g.source();
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
