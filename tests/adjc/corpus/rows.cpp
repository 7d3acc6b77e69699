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
