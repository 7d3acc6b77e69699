// Tensor ops that multiply: matmul (BLAS on any strides it can read), linear (the arrays
// engine's matmul kernel) and embedding, each beside its pullback.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "../kernels/parallel.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/tensor.hpp"
#include "op_support.hpp"

namespace adjoint {

using namespace tensor_detail;

// ---- matmul

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

}  // namespace custom_derivatives

// ---- linear

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

// The adapters' outputs (if any) added to linear's: lora must be their parameters.
Tensor adapted_linear(const Tensor& x_in, const Tensor& weight, const Tensor& bias, const Tensor& lora,
                      const LoraAdapters* adapters, int tensor, int layer) {
  Tensor out = linear(x_in, weight, bias);
  if (!adapters) return out;
  require(lora.data == adapters->params_memory() && lora.numel() == adapters->num_parameters(), "adapted_linear",
          [&] { return std::string("lora " + shape_string(lora) + " is not the adapters' parameters"); });
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  adapters->add_output(tensor, layer, out.data, x.data, int(x.numel() / std::size_t(weight.shape[1])));
  return out;
}

namespace {

// The pullback of linear and adapted_linear: dx += g·W (when x's adjoint is asked for, or as
// scratch for the adapters' input gradient), dW and db only when their adjoints are asked for (a
// frozen weight gets none: no weight-gradient GEMM runs), and the adapters' gradients into their
// arena (adapted_projection_backward, shared with the arrays engine).
void projection_pullback(const char* op, const Tensor& x_in, const Tensor& weight, const Tensor& bias,
                         const LoraAdapters* adapters, int tensor, int layer, const Tensor& d_result, Tensor* d_x,
                         Tensor* d_weight, Tensor* d_bias) {
  if (d_result.empty() || (!d_x && !d_weight && !d_bias && !adapters)) return;
  int N, C;
  rows_and_channels(x_in, op, &N, &C);
  const int OC = weight.shape[0];
  const Tensor dx = kernel_target(d_x, x_in);
  const bool weights = d_weight || (d_bias && !bias.empty());
  const Tensor dw = weights ? kernel_target(d_weight, weight) : Tensor{};
  const Tensor db = weights && !bias.empty() ? kernel_target(d_bias, bias) : Tensor{};
  {
    Temporaries scratch;
    const Tensor x = x_in.contiguous(), g = d_result.contiguous();
    adapted_projection_backward(dx.data, dw.empty() ? nullptr : dw.data, db.empty() ? nullptr : db.data, g.data, x.data,
                                weight.data, adapters, tensor, layer, N, C, OC);
  }
  finish_kernel_target(d_x, dx);
  if (!dw.empty()) finish_kernel_target(d_weight, dw);
  if (!db.empty()) finish_kernel_target(d_bias, db);
}

}  // namespace

namespace custom_derivatives {

void linear_pullback(const Tensor& x_in, const Tensor& weight, const Tensor& bias, Tensor d_result, Tensor* d_x,
                     Tensor* d_weight, Tensor* d_bias) {
  projection_pullback("linear", x_in, weight, bias, nullptr, 0, 0, d_result, d_x, d_weight, d_bias);
}

void adapted_linear_pullback(const Tensor& x_in, const Tensor& weight, const Tensor& bias, const Tensor&,
                             const LoraAdapters* adapters, int tensor, int layer, Tensor d_result, Tensor* d_x,
                             Tensor* d_weight, Tensor* d_bias, Tensor* d_lora, LoraAdapters*) {
  // The adapters add their gradients into their own arena, which the request's adjoint of lora views.
  require(!adapters || (d_lora && d_lora->data == adapters->grads_memory()), "adapted_linear",
          [&] { return std::string("the adjoint of lora is not the adapters' gradients"); });
  projection_pullback("adapted_linear", x_in, weight, bias, adapters, tensor, layer, d_result, d_x, d_weight, d_bias);
}

}  // namespace custom_derivatives

// ---- embedding

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

namespace custom_derivatives {

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

}  // namespace custom_derivatives

}  // namespace adjoint
