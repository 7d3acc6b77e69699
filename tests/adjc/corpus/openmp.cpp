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
