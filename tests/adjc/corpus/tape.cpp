// Corpus: values the forward sweep overwrites but the reverse sweep needs are taped and
// restored; values that are not overwritten are not stored.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

double overwrite_scalar(double x, int n) {
  double y = x;
  for (int i = 0; i < n; i++) y = std::sin(y) * y;
  return y;
}
void overwrite_array(double* x, int n, int steps) {
  for (int s = 0; s < steps; s++)
    for (int i = 0; i < n; i++) x[i] = x[i] * x[(i + 1) % n];
}
double overwrite_int_index(const double* x, int n) {
  double s = 0;
  int j = 0;
  for (int i = 0; i < n; i++) {
    s += x[j] * x[j];
    j = (j + 3) % n;
  }
  return s;
}
double reuse_local(double x) {
  double t = x * x;
  double a = std::exp(t);
  t = a * x;
  double b = t * t;
  t = std::sqrt(b + 1);
  return t * a;
}
// The shape of the GPT-2 kernels: a straight loop over an array.
void straight_loop(float* out, const float* inp, int N) {
  for (int i = 0; i < N; i++) {
    float x = inp[i];
    float cube = 0.044715f * x * x * x;
    out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + cube)));
  }
}

// Accumulators local to each row (the layernorm shape): taped once per row, not per element.
void normalize_rows(double* out, const double* x, int B, int C) {
  for (int b = 0; b < B; b++) {
    const double* row = x + b * C;
    double m = 0;
    for (int i = 0; i < C; i++) m += row[i];
    m = m / C;
    double v = 0;
    for (int i = 0; i < C; i++) v += (row[i] - m) * (row[i] - m);
    v = v / C;
    double s = 1 / std::sqrt(v + 1e-5);
    for (int i = 0; i < C; i++) out[b * C + i] = (row[i] - m) * s;
  }
}

// y *= x[i] with x varied: its reverse needs each old y (taped); y *= 2 needs none.
double running_product(const double* x, int n) {
  double y = 1;
  for (int i = 0; i < n; i++) {
    y *= x[i];
    y *= 2;
  }
  return y;
}

TEST(Tape, overwrite_scalar) {
  auto g = adjoint::gradient(overwrite_scalar, "x");
  check("overwrite_scalar", g, overwrite_scalar, Scalar<double>{}, 6);
}
TEST(Tape, overwrite_array) {
  auto g = adjoint::gradient(overwrite_array);
  check("overwrite_array", g, overwrite_array, InOut<double>{5, 0.5, 1.2}, 5, 3);
}
TEST(Tape, overwrite_int_index) {
  auto g = adjoint::gradient(overwrite_int_index, "x");
  check("overwrite_int_index", g, overwrite_int_index, In<double>{7}, 7);
}
TEST(Tape, running_product) {
  auto g = adjoint::gradient(running_product);
  check("running_product", g, running_product, In<double>{6, 0.5, 1.5}, 6);
}
TEST(Tape, reuse_local) { auto g = adjoint::gradient(reuse_local); check("reuse_local", g, reuse_local, Scalar<double>{}); }
TEST(Tape, straight_loop) {
  auto g = adjoint::gradient(straight_loop);
  check("straight_loop", g, straight_loop, Out<float>{9}, In<float>{9}, 9);
}

TEST(Tape, normalize_rows) {
  auto g = adjoint::gradient(normalize_rows);
  check("normalize_rows", g, normalize_rows, Out<double>{12}, In<double>{12}, 3, 4);
}

// Stores nothing per element: the tape holds the same bytes for 10 and 10000 elements.
inline void straight_loop_forward(float* out, const float* inp, int N);
inline void straight_loop_reverse(float* out, const float* inp, int N, float* d_out, float* d_inp);
TEST(Tape, straight_loop_stores_nothing_per_element) {
  std::size_t bytes[2];
  int sizes[2] = {10, 10000};
  for (int k = 0; k < 2; k++) {
    std::vector<float> out(sizes[k]), inp(sizes[k], 0.5f), d_out(sizes[k], 1.0f), d_inp(sizes[k]);
    std::size_t before = adjoint::thread_tape_bytes();
    straight_loop_forward(out.data(), inp.data(), sizes[k]);
    bytes[k] = adjoint::thread_tape_bytes() - before;
    straight_loop_reverse(out.data(), inp.data(), sizes[k], d_out.data(), d_inp.data());
    EXPECT_EQ(adjoint::thread_tape_bytes(), before);
  }
  EXPECT_EQ(bytes[0], bytes[1]);
  EXPECT_LE(bytes[0], 2 * sizeof(long));
}
inline void normalize_rows_forward(double* out, const double* x, int B, int C);
inline void normalize_rows_reverse(double* out, const double* x, int B, int C, double* d_out, double* d_x);
TEST(Tape, row_locals_stored_per_row) {
  std::size_t bytes[2];
  int widths[2] = {8, 800};
  for (int k = 0; k < 2; k++) {
    std::vector<double> out(4 * widths[k]), x(4 * widths[k], 0.5), d_out(out.size(), 1.0), d_x(out.size());
    x[0] = 0.7;
    std::size_t before = adjoint::thread_tape_bytes();
    normalize_rows_forward(out.data(), x.data(), 4, widths[k]);
    bytes[k] = adjoint::thread_tape_bytes() - before;
    normalize_rows_reverse(out.data(), x.data(), 4, widths[k], d_out.data(), d_x.data());
  }
  EXPECT_EQ(bytes[0], bytes[1]);
}
// An in-place nonlinear update must store the values it overwrites.
inline void overwrite_array_forward(double* x, int n, int steps);
TEST(Tape, overwrite_array_stores_values) {
  std::vector<double> x(100, 0.9);
  std::size_t before = adjoint::thread_tape_bytes();
  overwrite_array_forward(x.data(), 100, 2);
  EXPECT_GE(adjoint::thread_tape_bytes() - before, 200 * sizeof(double));
  adjoint::thread_tape<double>().clear();
  adjoint::thread_tape<long>().clear();
}
