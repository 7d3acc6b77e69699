// Corpus: a local defined once in a loop is recomputed at the start of its block's reverse instead
// of taped, when its definition gives there what it gave in the forward: the variables it reads
// keep their values to the end of the block (they are then kept for the reverse even when nothing
// else reads them). A variable written later in the block (an assignment, a loop's counter) makes
// it taped per iteration. Each case is checked against finite differences; the generated source
// shows which was chosen.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// `a` is read only by b's definition (b + ... needs no value of a): it must still reach the reverse.
void offset_square(double* y, const double* x, const double* c, int n) {
  double a = c[0] * 2;
  for (int i = 0; i < n; i++) {
    double b = a + x[i];
    y[i] = b * b;
  }
}
// The mean is assigned three times, all before the loop: d is recomputed, not taped per element.
void centred_square(double* y, const double* x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m = m / n;
  for (int i = 0; i < n; i++) {
    double d = x[i] - m;
    y[i] = d * d;
  }
}
// t is written after d's definition in the same iteration: d is taped.
void carried(double* y, const double* x, int n) {
  double t = 0.5;
  for (int i = 0; i < n; i++) {
    double d = t + x[i];
    y[i] = d * d;
    t = x[i] * x[i];
  }
}
// j counts a loop after b's definition (its initialisation and increment write j): b is taped.
void counter_later(double* y, const double* x, int n) {
  int j = 1;
  for (int i = 0; i < n; i++) {
    double b = x[j] * x[i];
    for (j = 0; j < 3; j++) y[i] += b * b * x[j];
  }
}
// y[i] is read by b's definition and overwritten after it in the same iteration: b is taped (the
// reverse would otherwise recompute it from the new y[i]). In steps of 2, so no bulk save restores
// y before the reverse loop either.
void read_then_overwrite(double* y, int n) {
  for (int i = 0; i < n; i += 2) {
    double b = y[i] * 2;
    y[i] = b * b;
  }
}
// A row pointer into memory the row then writes: it reads the address y, not y's elements, so it
// is recomputed rather than taped per row.
void square_rows(double* y, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double* p = y + r * n;
    for (int i = 0; i < n; i++) p[i] = p[i] * x[r * n + i];
  }
}

TEST(Recompute, offset_square) {
  auto g = adjoint::gradient(offset_square);
  check("offset_square", g, offset_square, Out<double>{5}, In<double>{5}, In<double>{1}, 5);
  EXPECT_EQ(occurrences(g.source(), "push(b)"), 0) << g.source();
}
TEST(Recompute, centred_square) {
  auto g = adjoint::gradient(centred_square);
  check("centred_square", g, centred_square, Out<double>{6}, In<double>{6}, 6);
  EXPECT_EQ(occurrences(g.source(), "push(d)"), 0) << g.source();
}
TEST(Recompute, carried) {
  auto g = adjoint::gradient(carried);
  check("carried", g, carried, Out<double>{5}, In<double>{5}, 5);
  EXPECT_EQ(occurrences(g.source(), "push(d)"), 1) << g.source();
}
TEST(Recompute, counter_later) {
  auto g = adjoint::gradient(counter_later);
  check("counter_later", g, counter_later, InOut<double>{4}, In<double>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "push(b)"), 1) << g.source();
}
TEST(Recompute, read_then_overwrite) {
  auto g = adjoint::gradient(read_then_overwrite);
  check("read_then_overwrite", g, read_then_overwrite, InOut<double>{5}, 5);
  EXPECT_EQ(occurrences(g.source(), "push(b)"), 1) << g.source();
}
TEST(Recompute, square_rows) {
  auto g = adjoint::gradient(square_rows);
  check("square_rows", g, square_rows, InOut<double>{6}, In<double>{6}, 2, 3);
  EXPECT_EQ(occurrences(g.source(), "push(p)"), 0) << g.source();
}

// A row's sum of squares (RMSNorm's): recomputed by running its loop again, not taped per row.
void rms_rows(double* y, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double sum_squares = 0;
    for (int i = 0; i < n; i++) sum_squares += x[r * n + i] * x[r * n + i];
    const double s = 1 / std::sqrt(sum_squares / n + 1e-5);
    for (int i = 0; i < n; i++) y[r * n + i] = x[r * n + i] * s;
  }
}
// The row is overwritten after its sum: the sum is taped.
void rms_rows_in_place(double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double sum_squares = 0;
    for (int i = 0; i < n; i++) sum_squares += x[r * n + i] * x[r * n + i];
    const double s = 1 / std::sqrt(sum_squares / n + 1e-5);
    for (int i = 0; i < n; i++) x[r * n + i] = x[r * n + i] * s;
  }
}
TEST(Recompute, rms_rows) {
  auto g = adjoint::gradient(rms_rows);
  check("rms_rows", g, rms_rows, Out<double>{12}, In<double>{12}, 3, 4);
  EXPECT_EQ(occurrences(g.source(), "push(sum_squares)"), 0) << g.source();
}
TEST(Recompute, rms_rows_in_place) {
  auto g = adjoint::gradient(rms_rows_in_place);
  check("rms_rows_in_place", g, rms_rows_in_place, InOut<double>{12}, 3, 4);
  EXPECT_EQ(occurrences(g.source(), "push(sum_squares)"), 1) << g.source();
}

// Results read back from their target (`y[k] = std::tanh(...)`, whose derivative is a function of
// the result). When the argument reads the overwritten value through a call (the inner tanh's
// derivative needs y[0]'s old value), that value stays taped; a later loop overwriting y (taped in
// bulk) restores the result first. With an argument linear in the old value (`y[i] - m`) only the
// result is needed and nothing is taped. The first was a wrong gradient the random tester found
// (seed 167).
void tanh_of_own_tanh(double* y, const double* x, int n) {
  y[0] = std::tanh(2.0 * std::tanh(y[0]));
  for (int i = 0; i < n; i++) y[i] = y[i] + x[i];
}
void exp_of_own_shift(double* y, const double* x, int n) {
  const double m = x[0];
  for (int i = 0; i < n; i++) y[i] = std::exp(y[i] - m);
}
TEST(Recompute, tanh_of_own_tanh) {
  auto g = adjoint::gradient(tanh_of_own_tanh);
  check("tanh_of_own_tanh", g, tanh_of_own_tanh, InOut<double>{4}, In<double>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "push(y[0])"), 1) << g.source();
}
TEST(Recompute, exp_of_own_shift) {
  auto g = adjoint::gradient(exp_of_own_shift);
  check("exp_of_own_shift", g, exp_of_own_shift, InOut<double>{5}, In<double>{1}, 5);
  EXPECT_EQ(occurrences(g.source(), "push"), 0) << g.source();
}
