// Corpus: adjoints that the iterations of an OpenMP parallel loop share, accumulated without
// atomics. An array every iteration reads at an inner loop's counter (a weight's `w[c]`, c below
// C) is summed in per-thread copies (adjoint::detail::thread_sums), added into the adjoint in
// thread order after the loop; an array read only where the same iteration writes another
// (RoPE's pairs: `out[j]`, `out[j + 1]` from `x[j]`, `x[j + 1]`) belongs to that iteration.
#include <adjoint/ad.hpp>

#include <cmath>
#include <omp.h>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// RMSNorm as the engine writes it: each row owns its x and out; every row reads all of w.
void summed_rmsnorm(double* out, const double* x, const double* w, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++) {
    double squares = 0;
    for (int c = 0; c < C; c++) squares += x[i * C + c] * x[i * C + c];
    const double s = 1 / std::sqrt(squares / C + 1e-5);
    for (int c = 0; c < C; c++) out[i * C + c] = x[i * C + c] * s * w[c];
  }
}

// Two shared arrays, each summed in copies of its own; b only from its second element on.
void summed_scale_shift(double* out, const double* x, const double* w, const double* b, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++) {
    for (int c = 0; c < C; c++) out[i * C + c] = x[i * C + c] * w[c];
    for (int c = 1; c < C; c++) out[i * C + c] += b[c] * b[c];
  }
}

// A shared array read at an index other than an inner loop's counter keeps its atomics.
void shared_reversed(double* out, const double* x, const double* w, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < C; c++) out[i * C + c] = x[i * C + c] * w[C - 1 - c];
}

// RoPE's form: channel pairs (2i, 2i+1) of the first `rotated` heads of a row rotated, the other
// heads copied. x is read only where the iteration writes out; the tables (read at i < half by
// every row) are summed.
void owned_pairs(double* out, const double* x, const double* cosines, const double* sines, int rows, int heads,
                 int rotated, int half) {
  const int row = heads * 2 * half;
#pragma omp parallel for
  for (int r = 0; r < rows; r++) {
    for (int h = 0; h < rotated; h++)
      for (int i = 0; i < half; i++) {
        const long j = (long)r * row + h * 2 * half + 2 * i;
        const double c = cosines[i], s = sines[i];
        out[j] = x[j] * c - x[j + 1] * s;
        out[j + 1] = x[j] * s + x[j + 1] * c;
      }
    for (int j = rotated * 2 * half; j < row; j++) out[(long)r * row + j] = x[(long)r * row + j];
  }
}

// x[j + 2] is the next iteration's element (no write of this iteration is there): x stays atomic.
void read_beyond_writes(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    const long j = 2 * i;
    out[j] = x[j] * x[j + 2];
    out[j + 1] = x[j + 1];
  }
}

// The index changes between the read and the write of the same expression: x stays atomic.
void index_moves(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    long j = 2 * i + 1;
    const double v = x[j] * x[j];
    j = j - 1;
    out[j] = v;
    out[j + 1] = v * x[j];
  }
}

// Packed rows of three parts of H heads of S channels, `((r * 3 + part) * H + h) * S + c`: every
// part of head h, in every row, is iteration h's (the digit h is below its radix H, so an element's
// remainders name its head whatever the row and part above). A causal sum over earlier rows adds
// into their parts' adjoints, each iteration's own: no atomics.
void packed_heads(double* out, const double* x, int rows, int H, int S) {
#pragma omp parallel for
  for (int h = 0; h < H; h++)
    for (int r = 0; r < rows; r++)
      for (int r2 = 0; r2 <= r; r2++) {
        const double* k = x + ((r2 * 3 + 1) * H + h) * S;
        for (int c = 0; c < S; c++)
          out[(r * H + h) * S + c] += x[((r * 3 + 0) * H + h) * S + c] * k[c] * x[((r2 * 3 + 2) * H + h) * S + c];
      }
}

// The same with the head's part one head further on (h + 1 reaches head h + 1's elements): shared.
void packed_heads_shifted(double* out, const double* x, int rows, int H, int S) {
#pragma omp parallel for
  for (int h = 0; h < H - 1; h++)
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < S; c++)
        out[(r * H + h) * S + c] = x[((r * 3 + 0) * H + h) * S + c] * x[((r * 3 + 1) * H + h + 1) * S + c];
}

class ParallelAdjoints : public ::testing::Test {
 protected:
  void SetUp() override { omp_set_num_threads(4); }
};

TEST_F(ParallelAdjoints, shared_weight_summed_per_thread) {
  auto g = adjoint::gradient(summed_rmsnorm);
  check("summed_rmsnorm", g, summed_rmsnorm, Out<double>{42}, In<double>{42}, In<double>{6}, 7, 6);
  check("summed_rmsnorm, fewer rows than threads", g, summed_rmsnorm, Out<double>{18}, In<double>{18}, In<double>{6},
        3, 6);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
  EXPECT_EQ(occurrences(g.source(), "thread_sums"), 1) << g.source();
}

// The copies are added into the adjoint (gradients accumulate), the same sums in every run.
TEST_F(ParallelAdjoints, summed_weight_adds_into_the_adjoint) {
  auto g = adjoint::gradient(summed_rmsnorm, "out,x,w");
  const int rows = 37, C = 24;
  std::vector<double> out(rows * C), x(rows * C), w(C, 0.5), from_zero;
  for (int k = 0; k < rows * C; k++) x[k] = std::sin(0.37 * k);
  for (double start : {0.0, 1.0, 0.0}) {
    std::vector<double> dout(rows * C), dx(rows * C), dw(C, start);
    for (int k = 0; k < rows * C; k++) dout[k] = std::cos(0.11 * k);
    g.execute(out.data(), x.data(), w.data(), rows, C, dout.data(), dx.data(), dw.data());
    if (from_zero.empty()) {
      from_zero = dw;
      continue;
    }
    for (int c = 0; c < C; c++) EXPECT_NEAR(dw[c], from_zero[c] + start, 1e-12) << "c " << c;
    if (start == 0.0) {
      EXPECT_EQ(dw, from_zero);
    }
  }
}

TEST_F(ParallelAdjoints, two_summed_arrays) {
  auto g = adjoint::gradient(summed_scale_shift);
  check("summed_scale_shift", g, summed_scale_shift, Out<double>{35}, In<double>{35}, In<double>{5}, In<double>{5},
        7, 5);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
  EXPECT_EQ(occurrences(g.source(), "thread_sums"), 2) << g.source();
}

TEST_F(ParallelAdjoints, other_shared_index_stays_atomic) {
  auto g = adjoint::gradient(shared_reversed);
  check("shared_reversed", g, shared_reversed, Out<double>{35}, In<double>{35}, In<double>{5}, 7, 5);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "thread_sums"), 0) << g.source();
}

TEST_F(ParallelAdjoints, reads_where_the_iteration_writes) {
  auto g = adjoint::gradient(owned_pairs);
  // 5 rows of 3 heads of 4 channels, 2 heads rotated.
  check("owned_pairs", g, owned_pairs, Out<double>{60}, In<double>{60}, In<double>{2}, In<double>{2}, 5, 3, 2, 2);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
  EXPECT_EQ(occurrences(g.source(), "thread_sums"), 2) << g.source();  // the tables
}

TEST_F(ParallelAdjoints, reads_elsewhere_stay_atomic) {
  auto beyond = adjoint::gradient(read_beyond_writes);
  check("read_beyond_writes", beyond, read_beyond_writes, Out<double>{22}, In<double>{24}, 11);
  EXPECT_GT(occurrences(beyond.source(), "#pragma omp atomic"), 0) << beyond.source();
  auto moved = adjoint::gradient(index_moves);
  check("index_moves", moved, index_moves, Out<double>{22}, In<double>{22}, 11);
  EXPECT_GT(occurrences(moved.source(), "#pragma omp atomic"), 0) << moved.source();
}

TEST_F(ParallelAdjoints, packed_heads_by_remainders) {
  auto g = adjoint::gradient(packed_heads);
  // 4 rows of 3 parts of 3 heads of 2 channels, over 4 threads (one without a head).
  check("packed_heads", g, packed_heads, Out<double>{24}, In<double>{72}, 4, 3, 2);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

TEST_F(ParallelAdjoints, packed_heads_shifted_stay_atomic) {
  auto g = adjoint::gradient(packed_heads_shifted);
  check("packed_heads_shifted", g, packed_heads_shifted, Out<double>{24}, In<double>{72}, 4, 3, 2);
  EXPECT_GT(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}
