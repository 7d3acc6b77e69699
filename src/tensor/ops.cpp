// The network ops on tensors and their pullbacks. Heavy ops run the engine's kernels on
// contiguous data (copying strided inputs first); their pullbacks recompute what the kernels'
// backward reads (layernorm statistics, attention probabilities, softmax probabilities) from
// the inputs, since a pullback receives only the op's arguments.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "../kernels/parallel.hpp"
#include "adjoint/gemm.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/tensor.hpp"
#include "kernel_gradients.hpp"
#include "strided.hpp"

namespace adjoint {

using namespace tensor_detail;

namespace {

// A logical (rows, cols) matrix as BLAS sees it: row-major with leading dimension ld, or the
// transpose of a row-major (cols, rows) matrix.
struct Matrix {
  const float* data;
  int rows, cols;
  int ld;
  bool transposed;
  Matrix t() const { return {data, cols, rows, ld, !transposed}; }
};

// The last two dims of x at data as a Matrix, or false when neither layout fits BLAS.
bool as_matrix(const Tensor& x, const float* data, Matrix* m) {
  const int rows = x.shape[x.ndim - 2], cols = x.shape[x.ndim - 1];
  const std::ptrdiff_t rs = x.strides[x.ndim - 2], cs = x.strides[x.ndim - 1];
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) {
    *m = {data, rows, cols, int(rows == 1 ? std::max(cols, 1) : rs), false};
    return true;
  }
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
    *m = {data, rows, cols, int(cols == 1 ? std::max(rows, 1) : cs), true};
    return true;
  }
  return false;
}

// c (a.rows, b.cols), row-major with leading dimension ldc, = a · b + beta c
void gemm(float* c, int ldc, const Matrix& a, const Matrix& b, float beta) {
  adjoint::gemm(a.transposed, b.transposed, a.rows, b.cols, a.cols, 1.0f, a.data, a.ld, b.data, b.ld, beta, c, ldc);
}

// x, or a contiguous copy when BLAS cannot read its last two dims as they are.
Tensor blas_readable(const Tensor& x) {
  Matrix m;
  return as_matrix(x, x.data, &m) ? x : x.contiguous();
}

// Leading (batch) extents of a tensor with matrices in its last two dims, padded to 2.
void batch_dims(const Tensor& x, int (&n)[2], std::ptrdiff_t (&s)[2]) {
  const int pad = 2 - (x.ndim - 2);
  for (int d = 0; d < 2; d++) {
    n[d] = d < pad ? 1 : x.shape[d - pad];
    s[d] = d < pad ? 0 : x.strides[d - pad];
  }
}

// The row count N and channel count C of x (..., C).
void rows_and_channels(const Tensor& x, const char* op, int* N, int* C) {
  require(x.ndim >= 1, op, [&] { return std::string("needs a tensor of at least 1 dimension"); });
  *C = x.shape[x.ndim - 1];
  *N = *C ? int(x.numel() / std::size_t(*C)) : 0;
}

// Same shape as x with the last extent replaced.
Tensor new_with_last(const Tensor& x, int last) {
  int shape[kMaxTensorDims];
  std::copy(x.shape, x.shape + x.ndim, shape);
  shape[x.ndim - 1] = last;
  return new_tensor(x.ndim, shape);
}

// *d itself when it is a contiguous tensor to accumulate into, else fresh zeros for a kernel
// whose result is added to *d afterwards (or dropped, for a null d) by finish_kernel_target.
// Allocated before an op's Temporaries, as it outlives them.
Tensor kernel_target(Tensor* d, const Tensor& like) {
  if (d && !d->empty() && d->is_contiguous()) return *d;
  return zeros_like(like);
}
void finish_kernel_target(Tensor* d, const Tensor& target) {
  if (d && d->data != target.data) adopt_or_add(d, target);
}

// The pullback of a kernel that accumulates one adjoint: backward(target, g) with d's kernel
// target and the contiguous output gradient g, inside the op's temporaries.
template <class Backward>
void kernel_pullback(Tensor* d, const Tensor& like, const Tensor& d_result, Backward backward) {
  const Tensor target = kernel_target(d, like);
  {
    Temporaries scratch;
    backward(target.data, d_result.contiguous());
  }
  finish_kernel_target(d, target);
}

// The pullback of a computation that overwrites its output, inside the op's temporaries:
// backward(out) writes the gradient to out, an empty adjoint's new storage, or (out null, when
// *d holds a gradient already) to scratch of its own, and returns where it wrote; that is then
// added to *d.
template <class Backward>
void overwriting_pullback(Tensor* d, const Tensor& like, Backward backward) {
  const bool fresh = d->empty();
  const Tensor out = fresh ? empty_like(like) : Tensor{};
  {
    Temporaries scratch;
    float* written = backward(fresh ? out.data : nullptr);
    if (!fresh) add_into(*d, dense_view(written, like));
  }
  if (fresh) *d = out;
}

// The pullback of a kernel over N rows of C channels with a weight and a bias (optional: may be
// empty) that accumulates all three adjoints: backward(dx, dweight, dbias or nullptr, g, x, N, C)
// on contiguous g and x, inside the op's temporaries.
template <class Backward>
void weighted_rows_pullback(const char* op, const Tensor& x_in, const Tensor& weight, const Tensor& bias,
                            const Tensor& d_result, Tensor* d_x, Tensor* d_weight, Tensor* d_bias, Backward backward) {
  if (d_result.empty()) return;
  int N, C;
  rows_and_channels(x_in, op, &N, &C);
  const Tensor dx = kernel_target(d_x, x_in), dw = kernel_target(d_weight, weight);
  const Tensor db = bias.empty() ? Tensor{} : kernel_target(d_bias, bias);
  {
    Temporaries scratch;
    const Tensor x = x_in.contiguous(), g = d_result.contiguous();
    backward(dx.data, dw.data, db.empty() ? nullptr : db.data, g, x, N, C);
  }
  finish_kernel_target(d_x, dx);
  finish_kernel_target(d_weight, dw);
  if (!bias.empty()) finish_kernel_target(d_bias, db);
}

}  // namespace

// ---- matmul ----

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  require(a_in.ndim >= 2 && b_in.ndim >= 2, "matmul",
          [&] { return std::string("needs matrices, got " + shape_string(a_in) + " and " + shape_string(b_in)); });
  require(a_in.size(-1) == b_in.size(-2), "matmul",
          [&] { return std::string("inner extents differ: " + shape_string(a_in) + " · " + shape_string(b_in)); });
  require(b_in.ndim == 2 || (b_in.ndim == a_in.ndim && std::equal(a_in.shape, a_in.shape + a_in.ndim - 2, b_in.shape)),
          "matmul",
          [&] { return std::string("batch extents differ: " + shape_string(a_in) + " · " + shape_string(b_in)); });
  read_by("matmul", a_in, b_in);
  const Tensor a = blas_readable(a_in), b = blas_readable(b_in);
  const int M = a.size(-2), N = b.size(-1);
  Tensor out = new_with_last(a, N);
  Matrix ma{}, mb{};
  if (b.ndim == 2 && a.is_contiguous()) {
    // Every batch against one b: one gemm over all rows.
    const int rows = int(a.numel() / std::size_t(std::max(a.size(-1), 1)));
    as_matrix(b, b.data, &mb);
    Matrix all{a.data, rows, a.size(-1), a.size(-1), false};
    if (a.size(-1) == 0) all.ld = 1;
    gemm(out.data, std::max(N, 1), all, mb, 0.0f);
    return out;
  }
  int na[2], nb[2];
  std::ptrdiff_t sa[2], sb[2];
  batch_dims(a, na, sa);
  batch_dims(b, nb, sb);
  for (int i0 = 0; i0 < na[0]; i0++)
    for (int i1 = 0; i1 < na[1]; i1++) {
      as_matrix(a, a.data + i0 * sa[0] + i1 * sa[1], &ma);
      as_matrix(b, b.data + i0 * sb[0] + i1 * sb[1], &mb);
      gemm(out.data + (std::size_t(i0) * na[1] + i1) * M * N, std::max(N, 1), ma, mb, 0.0f);
    }
  return out;
}

// ---- linear (the engine's matmul kernel) ----

Tensor linear(const Tensor& x_in, const Tensor& weight, const Tensor& bias) {
  int N, C;
  rows_and_channels(x_in, "linear", &N, &C);
  require(weight.ndim == 2 && weight.is_contiguous() && weight.shape[1] == C, "linear", [&] {
    return std::string("weight " + shape_string(weight) + " is not a contiguous (OC, " + std::to_string(C) + ")");
  });
  const int OC = weight.shape[0];
  require(bias.empty() || (bias.numel() == std::size_t(OC) && bias.is_contiguous()), "linear", [&] {
    return std::string("bias " + shape_string(bias) + " does not match " + std::to_string(OC) + " outputs");
  });
  read_by("linear", x_in, weight, bias);
  Tensor out = new_with_last(x_in, OC);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  kernels::matmul_forward(out.data, x.data, weight.data, bias.empty() ? nullptr : bias.data, N, C, OC);
  return out;
}

// ---- embedding ----

Tensor embedding(const Tensor& table, const int* idx, int B, int T) {
  require(table.ndim == 2 && table.strides[1] == 1, "embedding",
          [&] { return std::string("table must be (V, C) with contiguous rows"); });
  const int V = table.shape[0], C = table.shape[1];
  for (int i = 0; i < B * T; i++)
    require(idx[i] >= 0 && idx[i] < V, "embedding",
            [&] { return std::string("index " + std::to_string(idx[i]) + " outside [0, " + std::to_string(V) + ")"); });
  read_by("embedding", table);
  const int shape[3] = {B, T, C};
  Tensor out = new_tensor(3, shape);
#pragma omp parallel for
  for (int i = 0; i < B * T; i++)
    std::memcpy(out.data + std::size_t(i) * C, table.data + idx[i] * table.strides[0], C * sizeof(float));
  return out;
}

// ---- layernorm, gelu, attention (the engine's kernels) ----

Tensor layernorm(const Tensor& x_in, const Tensor& weight, const Tensor& bias) {
  int N, C;
  rows_and_channels(x_in, "layernorm", &N, &C);
  require(weight.numel() == std::size_t(C) && bias.numel() == std::size_t(C) && weight.is_contiguous() &&
              bias.is_contiguous(),
          "layernorm", [&] { return std::string("weight and bias must have " + std::to_string(C) + " elements"); });
  read_by("layernorm", x_in, weight, bias);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  float* stats = current_arena().allocate(2 * std::size_t(N));  // mean, rstd: the pullback recomputes them
  kernels::layernorm_forward(out.data, stats, stats + N, x.data, weight.data, bias.data, N, C);
  return out;
}

Tensor gelu(const Tensor& x_in) {
  read_by("gelu", x_in);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  kernels::gelu_forward(out.data, x.data, x.numel());
  return out;
}

Tensor causal_attention(const Tensor& qkv_in, int n_head) {
  require(qkv_in.ndim == 3 && qkv_in.shape[2] % 3 == 0 && n_head > 0 && (qkv_in.shape[2] / 3) % n_head == 0,
          "causal_attention",
          [&] { return std::string("qkv " + shape_string(qkv_in) + " is not (B, T, 3C) with C divisible by n_head"); });
  const int B = qkv_in.shape[0], T = qkv_in.shape[1], C = qkv_in.shape[2] / 3;
  read_by("causal_attention", qkv_in);
  const int shape[3] = {B, T, C};
  Tensor out = new_tensor(3, shape);
  Temporaries scratch;
  const Tensor qkv = qkv_in.contiguous();
  float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);  // the pullback recomputes it
  kernels::attention_forward(out.data, att, qkv.data, B, T, C, n_head);
  return out;
}

// ---- rmsnorm, rotary, swiglu (the engine's kernels; adjc derives their pullbacks from the loops) ----

namespace {

// Checks rotary's arguments; B, T, heads, hs of x.
void rotary_shape(const Tensor& x, const Tensor& cos, const Tensor& sin, int rotated_heads, int* B, int* T, int* heads,
                  int* hs) {
  require(x.ndim == 4 && x.shape[3] % 2 == 0 && rotated_heads >= 0 && rotated_heads <= x.shape[2], "rotary", [&] {
    return std::string("x " + shape_string(x) + " is not (B, T, heads, even hs) with " + std::to_string(rotated_heads) +
                       " rotated heads");
  });
  *B = x.shape[0], *T = x.shape[1], *heads = x.shape[2], *hs = x.shape[3];
  for (const Tensor* table : {&cos, &sin})
    require(table->ndim == 2 && table->is_contiguous() && table->shape[0] >= *T && table->shape[1] == *hs / 2,
            "rotary", [&] {
              return std::string("table " + shape_string(*table) + " is not a contiguous (>= " + std::to_string(*T) +
                                 ", " + std::to_string(*hs / 2) + ")");
            });
}

// A fresh copy of g: adjc's gradients consume (zero) the output's adjoint, and d_result is read-only.
float* seed_copy(const Tensor& g) {
  float* seed = current_arena().allocate(g.numel());
  std::memcpy(seed, g.data, g.numel() * sizeof(float));
  return seed;
}

#ifndef ADJOINT_HAVE_TENSOR_GRADIENT
[[noreturn]] void no_kernel_gradients(const char* op) {
  fail(op, "this build has no adjc-generated kernel gradients (its pullback is adjc's)");
}
#endif

}  // namespace

Tensor rmsnorm(const Tensor& x_in, const Tensor& weight, float eps) {
  int N, C;
  rows_and_channels(x_in, "rmsnorm", &N, &C);
  require(weight.numel() == std::size_t(C) && weight.is_contiguous(), "rmsnorm",
          [&] { return std::string("weight " + shape_string(weight) + " must have " + std::to_string(C) + " elements"); });
  read_by("rmsnorm", x_in, weight);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  float* rstd = current_arena().allocate(std::size_t(N));  // the pullback recomputes it
  kernels::rmsnorm_forward(out.data, rstd, x.data, weight.data, N, C, eps);
  return out;
}

Tensor rotary(const Tensor& x_in, const Tensor& cos, const Tensor& sin, int rotated_heads) {
  int B, T, heads, hs;
  rotary_shape(x_in, cos, sin, rotated_heads, &B, &T, &heads, &hs);
  read_by("rotary", x_in, cos, sin);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  kernels::rope_forward(out.data, x.data, cos.data, sin.data, B, T, rotated_heads, heads, hs);
  return out;
}

Tensor swiglu(const Tensor& gate_in, const Tensor& up_in) {
  require(gate_in.same_shape(up_in), "swiglu",
          [&] { return std::string("gate " + shape_string(gate_in) + " and up " + shape_string(up_in) + " differ"); });
  read_by("swiglu", gate_in, up_in);
  Tensor out = empty_like(gate_in);
  Temporaries scratch;
  const Tensor gate = gate_in.contiguous(), up = up_in.contiguous();
  kernels::swiglu_forward(out.data, gate.data, up.data, gate.numel());
  return out;
}

// ---- grouped_attention (the engine's kernel, key/value heads shared) ----

namespace {

// Checks grouped_attention's arguments; B, T, hs of qkv.
void grouped_attention_shape(const Tensor& qkv, int n_head, int n_kv_head, int* B, int* T, int* hs) {
  require(qkv.ndim == 4 && n_kv_head > 0 && n_head % n_kv_head == 0 && qkv.shape[2] == n_head + 2 * n_kv_head,
          "grouped_attention", [&] {
            return std::string("qkv " + shape_string(qkv) + " is not (B, T, n_head + 2·n_kv_head, hs) with n_head " +
                               std::to_string(n_head) + " a multiple of n_kv_head " + std::to_string(n_kv_head));
          });
  *B = qkv.shape[0], *T = qkv.shape[1], *hs = qkv.shape[3];
}

}  // namespace

Tensor grouped_attention(const Tensor& qkv_in, int n_head, int n_kv_head) {
  int B, T, hs;
  grouped_attention_shape(qkv_in, n_head, n_kv_head, &B, &T, &hs);
  read_by("grouped_attention", qkv_in);
  const int shape[3] = {B, T, n_head * hs};
  Tensor out = new_tensor(3, shape);
  Temporaries scratch;
  const Tensor qkv = qkv_in.contiguous();
  float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);  // the pullback recomputes it
  kernels::grouped_attention_forward(out.data, att, qkv.data, B, T, n_head, n_kv_head, hs);
  return out;
}

// ---- softmax (new: the kernel's softmax is fused with the loss) ----

Tensor softmax(const Tensor& x_in) {
  int N, C;
  rows_and_channels(x_in, "softmax", &N, &C);
  read_by("softmax", x_in);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const float* z = x.data + std::size_t(i) * C;
    float* p = out.data + std::size_t(i) * C;
    float maxval = -INFINITY;
    for (int c = 0; c < C; c++) maxval = std::fmax(maxval, z[c]);
    float total = 0;
    for (int c = 0; c < C; c++) {
      p[c] = std::exp(z[c] - maxval);
      total += p[c];
    }
    for (int c = 0; c < C; c++) p[c] /= total;
  }
  return out;
}

// ---- cross-entropy (the engine's fused softmax + cross-entropy kernel) ----

namespace {

// cross_entropy's name as it notes its reads, which its pullback looks for (Arena::claim_for_gradient).
constexpr char kCrossEntropy[] = "cross_entropy";

// Checks the arguments; returns the rows N and the padded width Vp.
void crossentropy_shape(const Tensor& logits, const int* targets, int V, int* N, int* Vp) {
  rows_and_channels(logits, "cross_entropy", N, Vp);
  require(V > 0 && V <= *Vp, "cross_entropy",
          [&] { return std::string("V " + std::to_string(V) + " outside (0, " + std::to_string(*Vp) + "]"); });
  for (int i = 0; i < *N; i++)
    require(targets[i] >= 0 && targets[i] < V, "cross_entropy", [&] {
      return std::string("target " + std::to_string(targets[i]) + " outside [0, " + std::to_string(V) + ")");
    });
}

}  // namespace

float cross_entropy(const Tensor& logits_in, const int* targets, int V) {
  int N, Vp;
  crossentropy_shape(logits_in, targets, V, &N, &Vp);
  read_by(kCrossEntropy, logits_in);
  Temporaries scratch;
  const Tensor logits = logits_in.contiguous();
  float* losses = current_arena().allocate(std::size_t(N));
  // The loss needs no probabilities, but the kernel writes them: a few rows at a time into one
  // buffer, not an (N, Vp) array beside the logits (the pullback computes them again).
  const int rows = std::min(N, 8 * omp_get_max_threads());
  float* probs = current_arena().allocate(std::size_t(rows) * Vp);
  for (int i = 0; i < N; i += rows)
    kernels::softmax_crossentropy_forward(losses + i, probs, logits.data + std::size_t(i) * Vp, targets + i,
                                          std::min(rows, N - i), V, Vp);
  double loss = 0;  // summed as the engine sums it, so both report the same loss
  for (int i = 0; i < N; i++) loss += losses[i];
  return float(loss / N);
}

namespace custom_derivatives {

void matmul_pullback(const Tensor& a_in, const Tensor& b_in, Tensor d_result, Tensor* d_a, Tensor* d_b) {
  if (d_result.empty()) return;
  const Tensor da = d_a ? empty_like(a_in) : Tensor{};
  const Tensor db = d_b ? zeros_like(b_in) : Tensor{};
  {
    Temporaries scratch;
    const Tensor a = blas_readable(a_in), b = blas_readable(b_in), g = d_result.contiguous();
    const int M = a.size(-2), K = a.size(-1), N = b.size(-1);
    int na[2], nb[2];
    std::ptrdiff_t sa[2], sb[2];
    batch_dims(a, na, sa);
    batch_dims(b, nb, sb);
    Matrix ma{}, mb{};
    for (int i0 = 0; i0 < na[0]; i0++)
      for (int i1 = 0; i1 < na[1]; i1++) {
        const std::size_t batch = std::size_t(i0) * na[1] + i1;
        as_matrix(a, a.data + i0 * sa[0] + i1 * sa[1], &ma);
        as_matrix(b, b.data + i0 * sb[0] + i1 * sb[1], &mb);
        const Matrix mg{g.data + batch * M * N, M, N, std::max(N, 1), false};
        // da (M,K) = g (M,N) · bᵀ (N,K)
        if (d_a) gemm(da.data + batch * M * K, std::max(K, 1), mg, mb.t(), 0.0f);
        // db (K,N) += aᵀ (K,M) · g (M,N), summed over batches when b is one matrix
        if (d_b) gemm(db.data + (b.ndim == 2 ? 0 : batch * K * N), std::max(N, 1), ma.t(), mg, 1.0f);
      }
  }
  adopt_or_add(d_a, da);
  adopt_or_add(d_b, db);
}

void linear_pullback(const Tensor& x_in, const Tensor& weight, const Tensor& bias, Tensor d_result, Tensor* d_x,
                     Tensor* d_weight, Tensor* d_bias) {
  const int OC = weight.shape[0];
  weighted_rows_pullback("linear", x_in, weight, bias, d_result, d_x, d_weight, d_bias,
                         [&](float* dx, float* dw, float* db, const Tensor& g, const Tensor& x, int N, int C) {
                           kernels::matmul_backward(dx, dw, db, g.data, x.data, weight.data, N, C, OC);
                         });
}

void embedding_pullback(const Tensor& table, const int* idx, int B, int T, Tensor d_result, Tensor* d_table) {
  if (d_result.empty() || !d_table) return;
  kernel_pullback(d_table, table, d_result, [&](float* dt, const Tensor& g) {
    const int C = table.shape[1];
    // Tokens repeat, so threads split channels, not rows: no atomics, deterministic.
#pragma omp parallel
    {
      const auto [c0, c1] = kernels::thread_range(C);
      for (int i = 0; i < B * T; i++) {
        const float* g_row = g.data + std::size_t(i) * C;
        float* d_row = dt + std::size_t(idx[i]) * C;
        for (int c = c0; c < c1; c++) d_row[c] += g_row[c];
      }
    }
  });
}

void layernorm_pullback(const Tensor& x_in, const Tensor& weight, const Tensor& bias, Tensor d_result, Tensor* d_x,
                        Tensor* d_weight, Tensor* d_bias) {
  weighted_rows_pullback("layernorm", x_in, weight, bias, d_result, d_x, d_weight, d_bias,
                         [&](float* dx, float* dw, float* db, const Tensor& g, const Tensor& x, int N, int C) {
                           // The statistics again (the forward's output is recomputed and dropped).
                           float* stats = current_arena().allocate(2 * std::size_t(N));
                           const Tensor out = empty_like(x);
                           kernels::layernorm_forward(out.data, stats, stats + N, x.data, weight.data, bias.data, N, C);
                           kernels::layernorm_backward(dx, dw, db, g.data, x.data, weight.data, stats, stats + N, N, C);
                         });
}

void softmax_pullback(const Tensor& x, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  int N, C;
  rows_and_channels(x, "softmax", &N, &C);
  overwriting_pullback(d_x, x, [&](float* dx) {
    const Tensor y = softmax(x), g = d_result.contiguous();
    float* out = dx ? dx : y.data;  // in place: each row's probabilities are read before overwritten
    // dx = y ⊙ (g - Σ g·y), row by row.
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
      const float* p = y.data + std::size_t(i) * C;
      const float* gi = g.data + std::size_t(i) * C;
      float* o = out + std::size_t(i) * C;
      float dot = 0;
      for (int c = 0; c < C; c++) dot += gi[c] * p[c];
      for (int c = 0; c < C; c++) o[c] = p[c] * (gi[c] - dot);
    }
    return out;
  });
}

void gelu_pullback(const Tensor& x_in, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  kernel_pullback(d_x, x_in, d_result, [&](float* dx, const Tensor& g) {
    const Tensor x = x_in.contiguous();
    kernels::gelu_backward(dx, x.data, g.data, x.numel());
  });
}

void causal_attention_pullback(const Tensor& qkv_in, int n_head, Tensor d_result, Tensor* d_qkv) {
  if (d_result.empty() || !d_qkv) return;
  const int B = qkv_in.shape[0], T = qkv_in.shape[1], C = qkv_in.shape[2] / 3;
  kernel_pullback(d_qkv, qkv_in, d_result, [&](float* dqkv, const Tensor& g) {
    const Tensor qkv = qkv_in.contiguous();
    // The probabilities again: the forward's are not passed to a pullback.
    float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
    float* out = current_arena().allocate(std::size_t(B) * T * C);
    kernels::attention_forward(out, att, qkv.data, B, T, C, n_head);
    float* datt = current_arena().allocate(std::size_t(B) * n_head * T);
    kernels::attention_backward(dqkv, datt, g.data, qkv.data, att, B, T, C, n_head);
  });
}

void rmsnorm_pullback(const Tensor& x_in, const Tensor& weight, float eps, Tensor d_result, Tensor* d_x, Tensor* d_weight,
                      float* d_eps) {
  weighted_rows_pullback("rmsnorm", x_in, weight, Tensor{}, d_result, d_x, d_weight, nullptr,
                         [&](float* dx, float* dw, float*, const Tensor& g, const Tensor& x, int N, int C) {
#ifdef ADJOINT_HAVE_TENSOR_GRADIENT
                           float* out = current_arena().allocate(std::size_t(N) * C);
                           float* rstd = current_arena().allocate(std::size_t(N));
                           float* d_rstd = current_arena().allocate(std::size_t(N));
                           std::fill(d_rstd, d_rstd + N, 0.0f);  // rstd is not a result of the op
                           float d_eps_here = 0;
                           kernels::rmsnorm_forward_grad(out, rstd, x.data, weight.data, N, C, eps, seed_copy(g), d_rstd,
                                                         dx, dw, &d_eps_here);
                           if (d_eps) *d_eps += d_eps_here;
#else
                           (void)dx, (void)dw, (void)g, (void)x, (void)N, (void)C, (void)eps, (void)d_eps;
                           no_kernel_gradients("rmsnorm");
#endif
                         });
}

void rotary_pullback(const Tensor& x_in, const Tensor& cos, const Tensor& sin, int rotated_heads, Tensor d_result,
                     Tensor* d_x, Tensor* d_cos, Tensor* d_sin) {
  if (d_result.empty()) return;
  int B, T, heads, hs;
  rotary_shape(x_in, cos, sin, rotated_heads, &B, &T, &heads, &hs);
  // The table's gradient only when asked for: a model's table is a constant.
  const bool table = d_cos || d_sin;
  const Tensor dx = kernel_target(d_x, x_in);
  const Tensor dcos = table ? kernel_target(d_cos, cos) : Tensor{}, dsin = table ? kernel_target(d_sin, sin) : Tensor{};
  {
    Temporaries scratch;
    const Tensor x = x_in.contiguous();
    float* seed = seed_copy(d_result.contiguous());
    float* out = current_arena().allocate(x.numel());
#ifdef ADJOINT_HAVE_TENSOR_GRADIENT
    if (table) {
      kernels::rope_forward_grad(out, x.data, cos.data, sin.data, B, T, rotated_heads, heads, hs, seed, dx.data,
                                 dcos.data, dsin.data);
    } else {
      kernels::rope_forward_grad(out, x.data, cos.data, sin.data, B, T, rotated_heads, heads, hs, seed, dx.data);
    }
#else
    (void)seed, (void)out;
    no_kernel_gradients("rotary");
#endif
  }
  finish_kernel_target(d_x, dx);
  if (table) {
    finish_kernel_target(d_cos, dcos);
    finish_kernel_target(d_sin, dsin);
  }
}

void swiglu_pullback(const Tensor& gate_in, const Tensor& up_in, Tensor d_result, Tensor* d_gate, Tensor* d_up) {
  if (d_result.empty()) return;
  const Tensor dgate = kernel_target(d_gate, gate_in), dup = kernel_target(d_up, up_in);
  {
    Temporaries scratch;
    const Tensor gate = gate_in.contiguous(), up = up_in.contiguous();
    float* seed = seed_copy(d_result.contiguous());
    float* out = current_arena().allocate(gate.numel());
#ifdef ADJOINT_HAVE_TENSOR_GRADIENT
    kernels::swiglu_forward_grad(out, gate.data, up.data, gate.numel(), seed, dgate.data, dup.data);
#else
    (void)seed, (void)out;
    no_kernel_gradients("swiglu");
#endif
  }
  finish_kernel_target(d_gate, dgate);
  finish_kernel_target(d_up, dup);
}

void grouped_attention_pullback(const Tensor& qkv_in, int n_head, int n_kv_head, Tensor d_result, Tensor* d_qkv) {
  if (d_result.empty() || !d_qkv) return;
  int B, T, hs;
  grouped_attention_shape(qkv_in, n_head, n_kv_head, &B, &T, &hs);
  kernel_pullback(d_qkv, qkv_in, d_result, [&](float* dqkv, const Tensor& g) {
    const Tensor qkv = qkv_in.contiguous();
    // The probabilities again: the forward's are not passed to a pullback.
    float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
    float* out = current_arena().allocate(std::size_t(B) * T * n_head * hs);
    kernels::grouped_attention_forward(out, att, qkv.data, B, T, n_head, n_kv_head, hs);
    float* scratch = current_arena().allocate(std::size_t(B) * n_head * T);
    kernels::grouped_attention_backward(dqkv, scratch, g.data, qkv.data, att, B, T, n_head, n_kv_head, hs);
  });
}

void cross_entropy_pullback(const Tensor& logits_in, const int* targets, int V, float d_result, Tensor* d_logits) {
  if (!d_logits) return;
  int N, Vp;
  crossentropy_shape(logits_in, targets, V, &N, &Vp);
  // The gradient into probs, which may be the logits' own storage: the kernels read each logit and
  // probability before overwriting it.
  const auto gradient = [&](float* probs, const float* logits) {
    float* losses = current_arena().allocate(std::size_t(N));
    kernels::softmax_crossentropy_forward(losses, probs, logits, targets, N, V, Vp);
    for (int i = 0; i < N; i++) losses[i] = d_result / float(N);  // the mean's adjoint per row
    kernels::softmax_crossentropy_backward(probs, probs, targets, losses, N, V, Vp);
  };
  // Logits no other op read, inside a sweep's private intermediates: their storage becomes their
  // gradient, as the arrays engine writes the logits' gradient over its probabilities.
  if (d_logits->empty() && logits_in.is_contiguous() && current_arena().claim_for_gradient(logits_in, kCrossEntropy)) {
    Temporaries scratch;
    gradient(logits_in.data, logits_in.data);
    *d_logits = logits_in;
    return;
  }
  overwriting_pullback(d_logits, logits_in, [&](float* dlogits) {
    const Tensor logits = logits_in.contiguous();
    // The probabilities go where the gradient goes, so the pullback holds one (N, Vp) array
    // besides the logits, not two.
    float* probs = dlogits ? dlogits : current_arena().allocate(std::size_t(N) * Vp);
    gradient(probs, logits.data);
    return probs;
  });
}

}  // namespace custom_derivatives
}  // namespace adjoint
