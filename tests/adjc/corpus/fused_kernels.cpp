// Consecutive kernel calls of adjoint/kernels.hpp: the pairs whose loops fuse and the pairs that
// must not (adjc.pipeline.fusion_remarks compares adjc --remarks on this file with
// pipeline/fusion.expected, line for line), each against central differences in double.
#include <adjoint/ad.hpp>

#include "adjoint/kernels.hpp"
#include "gradcheck.hpp"

using namespace gradcheck;
using namespace adjoint::kernels;

// A custom pullback, as the models' GEMMs have: its loop is not adjc's.
void scale(double* out, const double* inp, int n) {
  for (int i = 0; i < n; i++) out[i] = 2 * inp[i];
}
namespace adjoint::custom_derivatives {
inline void scale_pullback(double*, const double*, int n, double* d_out, double* d_inp) {
  for (int i = 0; i < n; i++) d_inp[i] += 2 * d_out[i], d_out[i] = 0;
}
}  // namespace adjoint::custom_derivatives

namespace {

// The residual add into GELU: element i of both loops.
void add_gelu(double* sum, double* act, const double* x, const double* y, long n) {
  residual_forward(sum, x, y, n);
  gelu_forward(act, sum, n);
}

// The residual add into layernorm: row i of the normalisation is elements i*C..i*C+C-1 of the add.
void add_layernorm(double* sum, double* out, double* mean, double* rstd, const double* x, const double* y,
                   const double* w, const double* b, int N, int C) {
  const long NC = (long)N * C;
  residual_forward(sum, x, y, NC);
  layernorm_forward(out, mean, rstd, sum, w, b, N, C);
}

// RMSNorm into the SwiGLU gate (the up projection another input).
void rmsnorm_swiglu(double* norm, double* rstd, double* act, const double* x, const double* w, const double* up, int N,
                    int C) {
  rmsnorm_forward(norm, rstd, x, w, N, C, 1e-5f);
  swiglu_forward(act, norm, up, (std::size_t)N * C);
}

// The add's sum is read again after the layernorm (a transformer's residual stream): that pair fuses
// keeping the sum stored for the second add; the layernorm and the second add fuse too, row by row.
void second_reader(double* sum, double* out, double* mean, double* rstd, double* next, const double* x, const double* y,
                   const double* w, const double* b, int N, int C) {
  const long NC = (long)N * C;
  residual_forward(sum, x, y, NC);
  layernorm_forward(out, mean, rstd, sum, w, b, N, C);
  residual_forward(next, sum, out, NC);
}

// An add reads the sum before the pair overwrites it: a reader before the pair keeps it from fusing.
void reader_before(double* sum, double* prev, double* act, const double* x, const double* y, long n) {
  residual_forward(prev, sum, x, n);
  residual_forward(sum, x, y, n);
  gelu_forward(act, sum, n);
}

// The sum is written again after the second add reads it: the stored values would not be the pair's.
void written_after(double* sum, double* act, const double* x, const double* y, long n) {
  residual_forward(sum, x, y, n);
  residual_forward(act, sum, y, n);
  residual_forward(sum, act, x, n);
}

// GELU writes over x, which the add reads.
void writes_input(double* sum, double* x, const double* y, long n) {
  residual_forward(sum, x, y, n);
  gelu_forward(x, sum, n);
}

// The add writes the second half of buf, GELU reads buf from element 1.
void overlapping_slices(double* buf, double* act, const double* x, const double* y, long n) {
  residual_forward(buf + n, x, y, n);
  gelu_forward(act, buf + 1, n);
}

// The add's n elements are not N rows of C.
void different_spaces(double* sum, double* out, double* mean, double* rstd, const double* x, const double* y,
                      const double* w, const double* b, int N, int C, long n) {
  residual_forward(sum, x, y, n);
  layernorm_forward(out, mean, rstd, sum, w, b, N, C);
}

// N changes after NC is defined from it: the add's NC elements are not the layernorm's N rows of C.
void reassigned_count(double* sum, double* out, double* mean, double* rstd, const double* x, const double* y,
                      const double* w, const double* b, int N, int C) {
  const long NC = (long)N * C;
  N = N - 1;
  residual_forward(sum, x, y, NC);
  layernorm_forward(out, mean, rstd, sum, w, b, N, C);
}

// The producer keeps a custom pullback.
void custom_producer(double* scaled, double* act, const double* x, int n) {
  scale(scaled, x, n);
  gelu_forward(act, scaled, (std::size_t)n);
}

// A running sum: each iteration reads the sum of the ones before, so its loop fuses with nothing.
void prefix_sum(double* out, const double* inp, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) {
    s += inp[i];
    out[i] = s;
  }
}

// The consumer's iterations depend on each other.
void dependent_iterations(double* sum, double* out, const double* x, const double* y, long n) {
  residual_forward(sum, x, y, n);
  prefix_sum(out, sum, n);
}

// The add and GELU fuse; GELU's output then goes to a call with a custom pullback, which does not
// fuse with the call the fused one replaced.
void fused_then_custom(double* sum, double* act, double* scaled, const double* x, const double* y, int n) {
  residual_forward(sum, x, y, (std::size_t)n);
  gelu_forward(act, sum, (std::size_t)n);
  scale(scaled, act, n);
}

constexpr int kN = 3, kC = 5, kNC = kN * kC;

TEST(FusedKernels, add_gelu) {
  check("add_gelu", adjoint::gradient(add_gelu), add_gelu, Out<double>{kNC}, Out<double>{kNC}, In<double>{kNC},
        In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, add_layernorm) {
  auto g = adjoint::gradient(add_layernorm);
  check("add_layernorm", g, add_layernorm, Out<double>{kNC}, Out<double>{kNC}, Out<double>{kN}, Out<double>{kN},
        In<double>{kNC}, In<double>{kNC}, In<double>{kC}, In<double>{kC}, kN, kC);
  // Row r of the fused loop writes the sum's elements r*C .. r*C+C-1 and the layernorm reads that
  // row: the reverse's threads own the adjoints of the sum and of both inputs, without atomics.
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

TEST(FusedKernels, rmsnorm_swiglu) {
  check("rmsnorm_swiglu", adjoint::gradient(rmsnorm_swiglu), rmsnorm_swiglu, Out<double>{kNC}, Out<double>{kN},
        Out<double>{kNC}, In<double>{kNC}, In<double>{kC}, In<double>{kNC}, kN, kC);
}

TEST(FusedKernels, second_reader) {
  check("second_reader", adjoint::gradient(second_reader), second_reader, Out<double>{kNC}, Out<double>{kNC},
        Out<double>{kN}, Out<double>{kN}, Out<double>{kNC}, In<double>{kNC}, In<double>{kNC}, In<double>{kC},
        In<double>{kC}, kN, kC);
}

TEST(FusedKernels, reader_before) {
  check("reader_before", adjoint::gradient(reader_before), reader_before, InOut<double>{kNC}, Out<double>{kNC},
        Out<double>{kNC}, In<double>{kNC}, In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, written_after) {
  check("written_after", adjoint::gradient(written_after), written_after, InOut<double>{kNC}, Out<double>{kNC},
        In<double>{kNC}, In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, writes_input) {
  check("writes_input", adjoint::gradient(writes_input), writes_input, Out<double>{kNC}, InOut<double>{kNC},
        In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, overlapping_slices) {
  check("overlapping_slices", adjoint::gradient(overlapping_slices), overlapping_slices, InOut<double>{2 * kNC},
        Out<double>{kNC}, In<double>{kNC}, In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, different_spaces) {
  check("different_spaces", adjoint::gradient(different_spaces), different_spaces, Out<double>{kNC}, Out<double>{kNC},
        Out<double>{kN}, Out<double>{kN}, In<double>{kNC}, In<double>{kNC}, In<double>{kC}, In<double>{kC}, kN, kC,
        long{kNC - 1});
}

TEST(FusedKernels, reassigned_count) {
  check("reassigned_count", adjoint::gradient(reassigned_count), reassigned_count, Out<double>{kNC}, Out<double>{kNC},
        Out<double>{kN}, Out<double>{kN}, In<double>{kNC}, In<double>{kNC}, In<double>{kC}, In<double>{kC}, kN, kC);
}

TEST(FusedKernels, custom_producer) {
  check("custom_producer", adjoint::gradient(custom_producer), custom_producer, Out<double>{kNC}, Out<double>{kNC},
        In<double>{kNC}, kNC);
}

TEST(FusedKernels, dependent_iterations) {
  check("dependent_iterations", adjoint::gradient(dependent_iterations), dependent_iterations, Out<double>{kNC},
        Out<double>{kNC}, In<double>{kNC}, In<double>{kNC}, long{kNC});
}

TEST(FusedKernels, fused_then_custom) {
  check("fused_then_custom", adjoint::gradient(fused_then_custom), fused_then_custom, Out<double>{kNC},
        Out<double>{kNC}, Out<double>{kNC}, In<double>{kNC}, In<double>{kNC}, kNC);
}

}  // namespace
