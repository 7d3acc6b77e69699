// Corpus: OpenMP parallel loops. The reverse loop runs on the forward loop's threads, with the
// same iteration split; adjoints shared between iterations are summed in per-thread copies or
// accumulated atomically (parallel_adjoints.cpp).
#include <adjoint/ad.hpp>

#include <cmath>
#include <omp.h>

#include "gradcheck.hpp"

using namespace gradcheck;

void par_map(double* out, const double* x, double a, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double v = x[i] * a;
    out[i] = std::tanh(v) * x[i];
  }
}
// Every iteration reads all of w and x: their adjoints are shared (summed per thread).
void par_matvec(double* out, const double* w, const double* x, int rows, int cols) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows; r++) {
    const double* row = w + r * cols;
    double s = 0;
    for (int c = 0; c < cols; c++) s += row[c] * x[c];
    out[r] = s * s;
  }
}
// Values overwritten inside the parallel body go on each thread's own tape.
void par_overwrite(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int k = 0; k < 3; k++) t = t * t * 0.5 + x[i];
    out[i] = t;
  }
}
double par_then_serial(const double* x, double* tmp, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) tmp[i] = std::exp(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += tmp[i] * tmp[(i + 1) % n];
  return s;
}

// Each iteration owns row i of x and out (c below C): their adjoints need no atomics; w's is shared
// (summed per thread).
void par_rows(double* out, const double* x, const double* w, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < C; c++) out[i * C + c] = x[i * C + c] * x[i * C + c] * w[c];
}
// Rows of C + 1 elements C apart overlap: x's adjoint stays atomic (w's is summed per thread).
void par_overlapping_rows(double* out, const double* x, const double* w, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < C + 1; c++) out[i * (C + 1) + c] = x[i * C + c] * x[i * C + c] * w[c];
}

// Row i written by a loop over its range, k from i * C below i * C + C (the element loop a row
// fusion runs per row), and read back through a row pointer: both are row i, each iteration's own,
// so out's and x's adjoints need no atomics.
void par_row_ranges(double* out, double* y, const double* x, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++) {
    for (long k = (long)i * C; k < (long)i * C + C; k++) out[k] = x[k] * x[k];
    const double* row = out + (std::size_t)i * C;
    double s = 0;
    for (int c = 0; c < C; c++) s += row[c] * row[c];
    for (int c = 0; c < C; c++) y[i * C + c] = row[c] * s;
  }
}
// The range runs one element past the row: neighbouring rows share x[i * C + C], whose adjoint
// stays atomic.
void par_overlapping_row_ranges(double* y, const double* x, int rows, int C) {
#pragma omp parallel for
  for (int i = 0; i < rows; i++) {
    double s = 0;
    for (long k = (long)i * C; k < (long)i * C + C + 1; k++) s += x[k] * x[k];
    for (int c = 0; c < C; c++) y[i * C + c] = s * (c + 1);
  }
}
// Rows of (G + 2)·K segments of W elements, a packed qkv row's shape: iteration g reads segments
// g·G + j (j < G), K·G + g and K·G + K + g of every row r2 <= r, all its own, so their adjoints need no
// atomics.
void par_packed_row_segments(double* y, const double* x, int rows, int K, int G, int W) {
  const std::size_t stride = (std::size_t)(G + 2) * K * W;
#pragma omp parallel for
  for (int g = 0; g < K; g++)
    for (int r = 0; r < rows; r++)
      for (int j = 0; j < G; j++) {
        const double* a = x + r * stride + (std::size_t)(g * G + j) * W;
        double s = 0;
        for (int r2 = 0; r2 <= r; r2++) {
          const double* b = x + r2 * stride + ((std::size_t)K * G + g) * W;
          const double* c = x + r2 * stride + ((std::size_t)K * G + K + g) * W;
          for (int i = 0; i < W; i++) s += a[i] * b[i] + c[i] * c[i];
        }
        y[((std::size_t)r * K + g) * G + j] = s;
      }
}
// The same with the third segments one element early: iteration 0's first overlaps iteration
// K-1's second by an element, whose adjoint stays atomic.
void par_overlapping_row_segments(double* y, const double* x, int rows, int K, int G, int W) {
  const std::size_t stride = (std::size_t)(G + 2) * K * W;
#pragma omp parallel for
  for (int g = 0; g < K; g++)
    for (int r = 0; r < rows; r++)
      for (int j = 0; j < G; j++) {
        const double* a = x + r * stride + (std::size_t)(g * G + j) * W;
        double s = 0;
        for (int r2 = 0; r2 <= r; r2++) {
          const double* b = x + r2 * stride + ((std::size_t)K * G + g) * W;
          const double* c = x + r2 * stride + ((std::size_t)K * G + K + g) * W - 1;
          for (int i = 0; i < W; i++) s += a[i] * b[i] + c[i] * c[i];
        }
        y[((std::size_t)r * K + g) * G + j] = s;
      }
}

// reduction(+: s): each thread sums into a copy of its own; the reverse of every iteration reads
// the one adjoint of s.
double par_sum_squares(const double* x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s * s;  // the reverse reads the sum of every thread's part
}
// Two reduction variables, one an integer count, updated on branches, by += and -=; a shared
// scalar parameter read by every iteration.
double par_signed_sums(const double* x, double w, int n) {
  double s = 0;
  int positive = 0;
#pragma omp parallel for reduction(+ : s, positive) shared(x) default(shared)
  for (int i = 0; i < n; i++) {
    if (x[i] > 0) {
      s += w * x[i] * x[i];
      positive++;
    } else {
      s -= std::sin(x[i]) * w;
    }
  }
  return s / (positive + 1);
}
// A parameter as the reduction variable: its value before the loop is part of the sum.
double par_sum_into_parameter(double acc, const double* x, int n) {
#pragma omp parallel for reduction(+ : acc)
  for (int i = 0; i < n; i++) acc += std::exp(x[i]) * 0.5;
  return acc * acc;
}
// private, firstprivate and shared variables declared before the loop.
void par_private_temporary(double* out, const double* x, double a, int n) {
  double t, u;
#pragma omp parallel for private(t, u) firstprivate(a) shared(out, x)
  for (int i = 0; i < n; i++) {
    t = a * x[i];
    u = std::sin(t);
    out[i] = t * u + a;
  }
}
// A private variable assigned twice in an iteration: its old values are taped on each thread's tape.
void par_private_overwritten(double* out, const double* x, int n) {
  double t;
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++) {
    t = x[i] * x[i];
    t = std::sin(t) * t + x[i];
    out[i] = t * t;
  }
}
// Counting down, in steps of 2 and 3, with <=, >, != and the bound on the left.
void par_count_down(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = n - 1; i >= 0; i--) out[i] = x[i] * x[(i + 1) % n];
}
void par_strides(double* out, const double* x, int n) {
#pragma omp parallel for schedule(static, 3)
  for (int i = 0; i <= n - 2; i += 2) out[i / 2] = x[i] * std::cos(x[i + 1]);
#pragma omp parallel for
  for (int i = n - 1; i > 0; i -= 3) out[n / 2 + i / 3] = x[i] * x[i - 1];
}
// Steps written as assignments: `i = i + 2`, `i = 2 + i`, `i = i - 3`.
void par_assigned_steps(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i <= n - 2; i = i + 2) out[i / 2] = x[i] * std::cos(x[i + 1]);
#pragma omp parallel for
  for (int i = n - 1; i > 0; i = i - 3) out[n / 2 + i / 3] = x[i] * x[i - 1];
#pragma omp parallel for
  for (int i = 1; i < n / 2; i = 2 + i) out[i] = out[i] * x[i];
}
// Locals of the body that the lowering's first passes must see inside the parallel region (a
// captured statement, whose children are only its captures): a local struct, a reference to an
// element, a pointer to a local, a local array.
struct Cell {
  double v, w;
};
void par_body_locals(double* out, const double* x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    Cell b{1.0, x[i]};
    b.v = b.v * x[i] + b.w * b.w;
    double& r = out[i];
    r = b.v * b.w;
    double t = x[i];
    double* p = &t;
    *p = *p * *p;
    double a[2] = {x[i], 2 * t};
    a[0] = a[0] * a[1];
    r *= std::sin(a[0] + a[1] * a[1]);
  }
}
double par_bound_forms(const double* x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 1; n > i; ++i) s += x[i] * x[i - 1];
#pragma omp parallel for reduction(+ : s)
  for (long i = n - 1; i != 0; --i) s += std::tanh(x[i]);
  return s;
}
// The counter declared before the loop (OpenMP makes it private), and a team of 2.
double par_outer_counter(const double* x, int n) {
  int i;
  double s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(2)
  for (i = 0; i < n; i++) s += x[i] * x[i] * x[i];
  return s;
}
// A reduction per row of a sequential loop, with an inner loop in each iteration.
void par_row_norms(double* out, const double* w, const double* x, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int c = 0; c < cols; c++) {
      double p = 0;
      for (int k = 0; k <= c; k++) p += w[r * cols + k] * x[k];
      s += p * p;
    }
    out[r] = std::sqrt(s);
  }
}

class OpenMP : public ::testing::Test {
 protected:
  void SetUp() override { omp_set_num_threads(4); }
};

TEST_F(OpenMP, map) {
  auto g = adjoint::gradient(par_map);
  check("par_map", g, par_map, Out<double>{37}, In<double>{37}, Scalar<double>{}, 37);
}
TEST_F(OpenMP, matvec_shared_adjoint) {
  auto g = adjoint::gradient(par_matvec);
  check("par_matvec", g, par_matvec, Out<double>{9}, In<double>{27}, In<double>{3}, 9, 3);
}
TEST_F(OpenMP, overwrite_taped_per_thread) {
  auto g = adjoint::gradient(par_overwrite);
  check("par_overwrite", g, par_overwrite, Out<double>{23}, In<double>{23}, 23);
}
TEST_F(OpenMP, parallel_then_serial) {
  auto g = adjoint::gradient(par_then_serial);
  check("par_then_serial", g, par_then_serial, In<double>{11}, Out<double>{11}, 11);
}
TEST_F(OpenMP, tapes_empty_after_reverse) {
  auto g = adjoint::gradient(par_overwrite);
  std::vector<double> out(64), x(64, 0.3), dout(64, 1.0), dx(64);
  g.execute(out.data(), x.data(), 64, dout.data(), dx.data());
  int nonempty = 0;
#pragma omp parallel reduction(+ : nonempty)
  nonempty += adjoint::thread_tape_bytes() != 0;
  EXPECT_EQ(nonempty, 0);
}
TEST_F(OpenMP, rows_own_their_adjoints) {
  auto g = adjoint::gradient(par_rows);
  check("par_rows", g, par_rows, Out<double>{40}, In<double>{40}, In<double>{5}, 8, 5);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}
TEST_F(OpenMP, overlapping_rows_stay_atomic) {
  auto g = adjoint::gradient(par_overlapping_rows);
  check("par_overlapping_rows", g, par_overlapping_rows, Out<double>{48}, In<double>{41}, In<double>{6}, 8, 5);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 2) << g.source();  // d_x twice
}

TEST_F(OpenMP, row_ranges_own_their_adjoints) {
  auto g = adjoint::gradient(par_row_ranges);
  check("par_row_ranges", g, par_row_ranges, Out<double>{40}, Out<double>{40}, In<double>{40}, 8, 5);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}
TEST_F(OpenMP, packed_row_segments_own_their_adjoints) {
  auto g = adjoint::gradient(par_packed_row_segments);
  // 4 rows of (G + 2)·K = 8 segments of W = 3: K = 2 iterations of G = 2 first segments each.
  check("par_packed_row_segments", g, par_packed_row_segments, Out<double>{16}, In<double>{96}, 4, 2, 2, 3);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}
TEST_F(OpenMP, overlapping_row_segments_stay_atomic) {
  auto g = adjoint::gradient(par_overlapping_row_segments);
  check("par_overlapping_row_segments", g, par_overlapping_row_segments, Out<double>{16}, In<double>{96}, 4, 2, 2, 3);
  EXPECT_GT(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}
TEST_F(OpenMP, overlapping_row_ranges_stay_atomic) {
  auto g = adjoint::gradient(par_overlapping_row_ranges);
  check("par_overlapping_row_ranges", g, par_overlapping_row_ranges, Out<double>{40}, In<double>{41}, 8, 5);
  EXPECT_GT(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

// Each check with teams of 1 to 4 threads: a reduction's parts differ only with more than one.
template <class... Args>
void check_teams(Args&&... args) {
  for (int threads = 1; threads <= 4; threads++) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    omp_set_num_threads(threads);
    check(args...);
  }
}
TEST_F(OpenMP, reduction_sum) {
  auto g = adjoint::gradient(par_sum_squares);
  check_teams("par_sum_squares", g, par_sum_squares, In<double>{37}, 37);
}
TEST_F(OpenMP, reductions_on_branches) {
  auto g = adjoint::gradient(par_signed_sums);
  check_teams("par_signed_sums", g, par_signed_sums, In<double>{29}, Scalar<double>{}, 29);
}
TEST_F(OpenMP, reduction_into_parameter) {
  auto g = adjoint::gradient(par_sum_into_parameter);
  check_teams("par_sum_into_parameter", g, par_sum_into_parameter, Scalar<double>{}, In<double>{19}, 19);
}
TEST_F(OpenMP, private_and_firstprivate) {
  auto g = adjoint::gradient(par_private_temporary);
  check_teams("par_private_temporary", g, par_private_temporary, Out<double>{23}, In<double>{23}, Scalar<double>{}, 23);
}
TEST_F(OpenMP, private_overwritten) {
  auto g = adjoint::gradient(par_private_overwritten);
  check_teams("par_private_overwritten", g, par_private_overwritten, Out<double>{22}, In<double>{22}, 22);
}
TEST_F(OpenMP, counting_down) {
  auto g = adjoint::gradient(par_count_down);
  check_teams("par_count_down", g, par_count_down, Out<double>{17}, In<double>{17}, 17);
}
TEST_F(OpenMP, strides) {
  auto g = adjoint::gradient(par_strides);
  check_teams("par_strides", g, par_strides, Out<double>{20}, In<double>{20}, 20);
}
TEST_F(OpenMP, assigned_steps) {
  auto g = adjoint::gradient(par_assigned_steps);
  check_teams("par_assigned_steps", g, par_assigned_steps, Out<double>{20}, In<double>{20}, 20);
}
TEST_F(OpenMP, body_locals) {
  auto g = adjoint::gradient(par_body_locals);
  check_teams("par_body_locals", g, par_body_locals, Out<double>{9}, In<double>{9}, 9);
}
TEST_F(OpenMP, bound_forms) {
  auto g = adjoint::gradient(par_bound_forms);
  check_teams("par_bound_forms", g, par_bound_forms, In<double>{21}, 21);
}
TEST_F(OpenMP, counter_declared_outside) {
  auto g = adjoint::gradient(par_outer_counter);
  check_teams("par_outer_counter", g, par_outer_counter, In<double>{26}, 26);
}
TEST_F(OpenMP, reduction_per_row) {
  auto g = adjoint::gradient(par_row_norms);
  check_teams("par_row_norms", g, par_row_norms, Out<double>{4}, In<double>{36}, In<double>{9}, 4, 9);
}
