// Corpus: bulk saves. A straight loop whose one taped write is `P[X + i] = ...`, touching its
// region only at P[X + i], saves the elements it overwrites with one push_n before the loop and
// restores them with one pop_n (before its reverse loop when the reverse reads the old values,
// after it when it reads the new ones). Every other shape keeps a push and a pop per element.
// Each case is checked against finite differences; the generated source shows which was chosen.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// The reverse reads the old values (restored before the reverse loop); twice per row.
void scale_rows(double* y, const double* w, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double* row = y + r * n;
    for (int i = 0; i < n; i++) row[i] = row[i] * w[i];
    for (int i = 0; i < n; i++) row[i] = std::sin(row[i]) * row[i];
  }
}
// The same through an index with an offset, P[X + i].
void square_rows(double* y, int rows, int n) {
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < n; i++) y[r * n + i] = y[r * n + i] * y[r * n + i];
}
// The reverse reads the new values (restored after the reverse loop): the exponentials are read
// back from y, and the normalisation then overwrites them.
void exp_then_normalise(double* y, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    y[i] = std::exp(x[i]);
    s += y[i];
  }
  for (int i = 0; i < n; i++) y[i] = y[i] / s;
}
// Start and end from the arguments: an empty range saves nothing.
void square_range(double* y, int start, int end) {
  for (int i = start; i < end; i++) y[i] = y[i] * y[i];
}

// Shapes that keep per-element saves.
// A neighbour: iteration i reads y[i + 1] before iteration i + 1 overwrites it.
void neighbour(double* y, int n) {
  for (int i = 0; i < n - 1; i++) y[i] = y[i] * y[i + 1];
}
// Two writes of the region in one iteration.
void two_writes(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = y[i] * y[i];
    y[i] = y[i] * x[i];
  }
}
// The reverse reads both the old value (the write's own operand) and the new one (z's operand).
void old_and_new(double* y, double* z, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = y[i] * y[i];
    z[i] = y[i] * y[i];
  }
}
// Not straight: a branch in the body.
void branchy(double* y, int n) {
  for (int i = 0; i < n; i++)
    if (y[i] > 0) y[i] = y[i] * y[i];
}
// Step 2.
void every_other(double* y, int n) {
  for (int i = 0; i < n; i += 2) y[i] = y[i] * y[i];
}


// One push_n per bulk-saved loop in the forward, one pop_n in the reverse, no per-element push.
void expect_bulk(const char* source, int loops) {
  EXPECT_EQ(occurrences(source, "::adjoint::detail::push_n("), loops) << source;
  EXPECT_EQ(occurrences(source, "::adjoint::detail::pop_n("), loops) << source;
  EXPECT_EQ(occurrences(source, "] = ::adjoint::detail::pop<double>()"), 0) << source;
}
void expect_per_element(const char* source) {
  EXPECT_EQ(occurrences(source, "push_n("), 0) << source;
  EXPECT_GT(occurrences(source, "] = ::adjoint::detail::pop<double>()"), 0) << source;
}

TEST(BulkSaves, scale_rows) {
  auto g = adjoint::gradient(scale_rows);
  check("scale_rows", g, scale_rows, InOut<double>{12}, In<double>{4}, 3, 4);
  expect_bulk(g.source(), 2);
}
TEST(BulkSaves, square_rows) {
  auto g = adjoint::gradient(square_rows);
  check("square_rows", g, square_rows, InOut<double>{12}, 3, 4);
  expect_bulk(g.source(), 1);
}
TEST(BulkSaves, exp_then_normalise) {
  auto g = adjoint::gradient(exp_then_normalise);
  check("exp_then_normalise", g, exp_then_normalise, Out<double>{5}, In<double>{5}, 5);
  // The normalisation saves the exponentials (nothing reads y's earlier contents: no save).
  expect_bulk(g.source(), 1);
  EXPECT_EQ(occurrences(g.source(), "exp("), 1) << g.source();
}
TEST(BulkSaves, square_range) {
  auto g = adjoint::gradient(square_range);
  check("square_range", g, square_range, InOut<double>{6}, 1, 5);
  check("square_range empty", g, square_range, InOut<double>{6}, 4, 2);
  expect_bulk(g.source(), 1);
}
TEST(BulkSaves, neighbour) {
  auto g = adjoint::gradient(neighbour);
  check("neighbour", g, neighbour, InOut<double>{5}, 5);
  expect_per_element(g.source());
}
TEST(BulkSaves, two_writes) {
  auto g = adjoint::gradient(two_writes);
  check("two_writes", g, two_writes, InOut<double>{4}, In<double>{4}, 4);
  expect_per_element(g.source());
}
TEST(BulkSaves, old_and_new) {
  auto g = adjoint::gradient(old_and_new);
  check("old_and_new", g, old_and_new, InOut<double>{4}, Out<double>{4}, 4);
  expect_per_element(g.source());
}
TEST(BulkSaves, branchy) {
  auto g = adjoint::gradient(branchy);
  check("branchy", g, branchy, InOut<double>{5}, 5);
  expect_per_element(g.source());
}
TEST(BulkSaves, every_other) {
  auto g = adjoint::gradient(every_other);
  check("every_other", g, every_other, InOut<double>{6}, 6);
  expect_per_element(g.source());
}
