// Corpus: loops whose iterations each own a row (`p = y + r * n; p[i]` or `y[r * n + i]` with i
// counting from 0 while below n). A write in row r cannot destroy what row r - 1's reverse reads,
// so it is not taped for that reason; rows that overlap keep the tape. Each case is checked
// against finite differences (a missing save gives a wrong gradient); the generated source shows
// what was taped.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// Row r reads its own squares (z's reverse needs them); row r + 1 writes only its own.
void square_then_use(double* y, double* z, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double* p = y + r * n;
    for (int i = 0; i < n; i++) p[i] = x[r * n + i] * x[r * n + i];
    for (int i = 0; i < n; i++) z[r * n + i] = p[i] * p[i];
  }
}
// The same, indexed directly.
void square_then_use_indexed(double* y, double* z, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    for (int i = 0; i < n; i++) y[r * n + i] = x[r * n + i] * x[r * n + i];
    for (int i = 0; i < n; i++) z[r * n + i] = y[r * n + i] * y[r * n + i];
  }
}
// Rows overlap by one element: row r reads p[n], which row r + 1 overwrites first (taped).
void overlapping_rows(double* y, double* z, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    double* p = y + r * n;
    for (int i = 0; i < n + 1; i++) p[i] = x[r * (n + 1) + i] * x[r * (n + 1) + i];
    for (int i = 0; i < n + 1; i++) z[r * (n + 1) + i] = p[i] * p[i];
  }
}
// Every row writes the same scratch row: taped.
void shared_scratch(double* scratch, double* z, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    for (int i = 0; i < n; i++) scratch[i] = x[r * n + i] * x[r * n + i];
    for (int i = 0; i < n; i++) z[r * n + i] = scratch[i] * scratch[i];
  }
}

int element_pops(const char* source) { return occurrences(source, "] = ::adjoint::detail::pop<double>()"); }
int block_pops(const char* source) { return occurrences(source, "::adjoint::detail::pop_n("); }

TEST(Rows, square_then_use) {
  auto g = adjoint::gradient(square_then_use);
  check("square_then_use", g, square_then_use, Out<double>{12}, Out<double>{12}, In<double>{12}, 3, 4);
  EXPECT_EQ(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, square_then_use_indexed) {
  auto g = adjoint::gradient(square_then_use_indexed);
  check("square_then_use_indexed", g, square_then_use_indexed, Out<double>{12}, Out<double>{12}, In<double>{12}, 3,
        4);
  EXPECT_EQ(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, overlapping_rows) {
  auto g = adjoint::gradient(overlapping_rows);
  check("overlapping_rows", g, overlapping_rows, Out<double>{13}, Out<double>{15}, In<double>{15}, 3, 4);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, shared_scratch) {
  auto g = adjoint::gradient(shared_scratch);
  check("shared_scratch", g, shared_scratch, Out<double>{4}, Out<double>{12}, In<double>{12}, 3, 4);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}

// Rows of any affine form: attention's `p = y + ((b * H + h) * T + t) * T`, a mixed-radix index
// whose lower digits (t, then t2 <= t) stay below their radix T, so each b, t and h owns a row.
// Row (b, h, t) is written and read back in its own iteration: nothing is taped.
void causal_rows(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        double* p = y + ((b * H + h) * T + t) * T;
        for (int t2 = 0; t2 <= t; t2++) p[t2] = x[b * T + t2] * x[b * T + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 <= t; t2++) s += p[t2] * p[t2];
        z[(b * T + t) * H + h] = s;
      }
}
// The same row indexed directly, y[((b * H + h) * T + t) * T + t2], with t2 < T.
void causal_rows_indexed(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        for (int t2 = 0; t2 < T; t2++) y[((b * H + h) * T + t) * T + t2] = x[b * T + t2] * x[b * T + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 < T; t2++) s += y[((b * H + h) * T + t) * T + t2] * y[((b * H + h) * T + t) * T + t2];
        z[(b * T + t) * H + h] = s;
      }
}
// Rows of T + 1 elements T apart overlap by one: row t's last element is row t + 1's first (taped).
void causal_rows_overlapping(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        double* p = y + ((b * H + h) * T + t) * T;
        for (int t2 = 0; t2 < T + 1; t2++) p[t2] = x[b * (T + 1) + t2] * x[b * (T + 1) + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 < T + 1; t2++) s += p[t2] * p[t2];
        z[(b * T + t) * H + h] = s;
      }
}
// Rows T - 1 apart with T elements: a stride smaller than the row (taped).
void causal_rows_short_stride(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        double* p = y + ((b * H + h) * T + t) * (T - 1);
        for (int t2 = 0; t2 < T; t2++) p[t2] = x[b * T + t2] * x[b * T + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 < T; t2++) s += p[t2] * p[t2];
        z[(b * T + t) * H + h] = s;
      }
}
// A digit past its radix: t2 <= t + 1 reaches the next row's first element (taped).
void causal_rows_past_the_row(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        double* p = y + ((b * H + h) * T + t) * T;
        for (int t2 = 0; t2 <= t + 1; t2++) p[t2] = x[b * (T + 1) + t2] * x[b * (T + 1) + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 <= t + 1; t2++) s += p[t2] * p[t2];
        z[(b * T + t) * H + h] = s;
      }
}
// Written as rows of (b, h, t) but read as rows of (b, t, h): the read of iteration (b, t, h) is
// another iteration's row (taped).
void causal_rows_transposed_read(double* y, double* z, const double* x, int B, int H, int T) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < H; h++) {
        for (int t2 = 0; t2 < T; t2++) y[((b * H + h) * T + t) * T + t2] = x[b * T + t2] * x[b * T + t2] * (h + 1);
        double s = 0;
        for (int t2 = 0; t2 < T; t2++) s += y[((b * T + t) * H + h) * T + t2] * y[((b * T + t) * H + h) * T + t2];
        z[(b * T + t) * H + h] = s;
      }
}

TEST(Rows, causal_rows) {
  auto g = adjoint::gradient(causal_rows);
  check("causal_rows", g, causal_rows, Out<double>{2 * 2 * 3 * 3}, Out<double>{2 * 3 * 2}, In<double>{2 * 3}, 2, 2,
        3);
  EXPECT_EQ(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, causal_rows_indexed) {
  auto g = adjoint::gradient(causal_rows_indexed);
  check("causal_rows_indexed", g, causal_rows_indexed, Out<double>{2 * 2 * 3 * 3}, Out<double>{2 * 3 * 2},
        In<double>{2 * 3}, 2, 2, 3);
  EXPECT_EQ(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, causal_rows_overlapping) {
  auto g = adjoint::gradient(causal_rows_overlapping);
  check("causal_rows_overlapping", g, causal_rows_overlapping, Out<double>{2 * 2 * 3 * 3 + 1},
        Out<double>{2 * 3 * 2}, In<double>{2 * 4}, 2, 2, 3);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, causal_rows_short_stride) {
  auto g = adjoint::gradient(causal_rows_short_stride);
  check("causal_rows_short_stride", g, causal_rows_short_stride, Out<double>{2 * 2 * 3 * 2 + 1},
        Out<double>{2 * 3 * 2}, In<double>{2 * 3}, 2, 2, 3);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, causal_rows_past_the_row) {
  auto g = adjoint::gradient(causal_rows_past_the_row);
  check("causal_rows_past_the_row", g, causal_rows_past_the_row, Out<double>{2 * 2 * 3 * 3 + 1},
        Out<double>{2 * 3 * 2}, In<double>{2 * 4}, 2, 2, 3);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
TEST(Rows, causal_rows_transposed_read) {
  auto g = adjoint::gradient(causal_rows_transposed_read);
  check("causal_rows_transposed_read", g, causal_rows_transposed_read, Out<double>{2 * 2 * 3 * 3},
        Out<double>{2 * 3 * 2}, In<double>{2 * 3}, 2, 2, 3);
  EXPECT_GT(element_pops(g.source()) + block_pops(g.source()), 0) << g.source();
}
