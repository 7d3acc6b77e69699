// Tensor ops of a transformer layer, each beside its pullback: layernorm, GELU and causal
// attention (the arrays engine's kernels and their hand-written backward; the pullbacks recompute
// what the backward reads, since a pullback receives only the op's arguments), grouped attention
// likewise, and RMSNorm, RoPE and SwiGLU, whose pullbacks are adjc's gradients of the kernels' loops
// (kernel_gradients.cpp).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernel_gradients.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/tensor.hpp"
#include "op_support.hpp"

namespace adjoint {

using namespace tensor_detail;

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
    require(table->ndim == 2 && table->is_contiguous() && table->shape[0] >= *T && table->shape[1] == *hs / 2, "rotary",
            [&] {
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

// ---- layernorm

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

namespace custom_derivatives {

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

}  // namespace custom_derivatives

// ---- gelu

Tensor gelu(const Tensor& x_in) {
  read_by("gelu", x_in);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  kernels::gelu_forward(out.data, x.data, x.numel());
  return out;
}

namespace custom_derivatives {

void gelu_pullback(const Tensor& x_in, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  kernel_pullback(d_x, x_in, d_result, [&](float* dx, const Tensor& g) {
    const Tensor x = x_in.contiguous();
    kernels::gelu_backward(dx, x.data, g.data, x.numel());
  });
}

}  // namespace custom_derivatives

// ---- causal attention

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
  // The pullback recomputes both.
  float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
  float* att_sum = current_arena().allocate(std::size_t(B) * n_head * T);
  kernels::attention_forward(out.data, att, att_sum, qkv.data, B, T, C, n_head);
  return out;
}

namespace custom_derivatives {

void causal_attention_pullback(const Tensor& qkv_in, int n_head, Tensor d_result, Tensor* d_qkv) {
  if (d_result.empty() || !d_qkv) return;
  const int B = qkv_in.shape[0], T = qkv_in.shape[1], C = qkv_in.shape[2] / 3;
  kernel_pullback(d_qkv, qkv_in, d_result, [&](float* dqkv, const Tensor& g) {
    const Tensor qkv = qkv_in.contiguous();
    // The probabilities again: the forward's are not passed to a pullback.
    float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
    float* out = current_arena().allocate(std::size_t(B) * T * C);
    // Its row sums, then the backward's scratch.
    float* datt = current_arena().allocate(std::size_t(B) * n_head * T);
    kernels::attention_forward(out, att, datt, qkv.data, B, T, C, n_head);
    kernels::attention_backward(dqkv, datt, g.data, qkv.data, att, B, T, C, n_head);
  });
}

}  // namespace custom_derivatives

// ---- rmsnorm

Tensor rmsnorm(const Tensor& x_in, const Tensor& weight, float eps) {
  int N, C;
  rows_and_channels(x_in, "rmsnorm", &N, &C);
  require(weight.numel() == std::size_t(C) && weight.is_contiguous(), "rmsnorm", [&] {
    return std::string("weight " + shape_string(weight) + " must have " + std::to_string(C) + " elements");
  });
  read_by("rmsnorm", x_in, weight);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
  float* rstd = current_arena().allocate(std::size_t(N));  // the pullback recomputes it
  kernels::rmsnorm_forward(out.data, rstd, x.data, weight.data, N, C, eps);
  return out;
}

namespace custom_derivatives {

void rmsnorm_pullback(const Tensor& x_in, const Tensor& weight, float eps, Tensor d_result, Tensor* d_x,
                      Tensor* d_weight, float* d_eps) {
  weighted_rows_pullback("rmsnorm", x_in, weight, Tensor{}, d_result, d_x, d_weight, nullptr,
                         [&](float* dx, float* dw, float*, const Tensor& g, const Tensor& x, int N, int C) {
#ifdef ADJOINT_HAVE_TENSOR_GRADIENT
                           float* out = current_arena().allocate(std::size_t(N) * C);
                           float* rstd = current_arena().allocate(std::size_t(N));
                           float* d_rstd = current_arena().allocate(std::size_t(N));
                           std::fill(d_rstd, d_rstd + N, 0.0f);  // rstd is not a result of the op
                           float d_eps_here = 0;
                           kernels::rmsnorm_forward_grad(out, rstd, x.data, weight.data, N, C, eps, seed_copy(g),
                                                         d_rstd, dx, dw, &d_eps_here);
                           if (d_eps) *d_eps += d_eps_here;
#else
                           (void)dx, (void)dw, (void)g, (void)x, (void)N, (void)C, (void)eps, (void)d_eps;
                           no_kernel_gradients("rmsnorm");
#endif
                         });
}

}  // namespace custom_derivatives

// ---- rotary

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

namespace custom_derivatives {

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

}  // namespace custom_derivatives

// ---- swiglu

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

namespace custom_derivatives {

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

}  // namespace custom_derivatives

// ---- grouped attention (key/value heads shared)

Tensor grouped_attention(const Tensor& qkv_in, int n_head, int n_kv_head) {
  int B, T, hs;
  grouped_attention_shape(qkv_in, n_head, n_kv_head, &B, &T, &hs);
  read_by("grouped_attention", qkv_in);
  const int shape[3] = {B, T, n_head * hs};
  Tensor out = new_tensor(3, shape);
  Temporaries scratch;
  const Tensor qkv = qkv_in.contiguous();
  // The pullback recomputes both.
  float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
  float* att_sum = current_arena().allocate(std::size_t(B) * n_head * T);
  kernels::grouped_attention_forward(out.data, att, att_sum, qkv.data, B, T, n_head, n_kv_head, hs);
  return out;
}

namespace custom_derivatives {

void grouped_attention_pullback(const Tensor& qkv_in, int n_head, int n_kv_head, Tensor d_result, Tensor* d_qkv) {
  if (d_result.empty() || !d_qkv) return;
  int B, T, hs;
  grouped_attention_shape(qkv_in, n_head, n_kv_head, &B, &T, &hs);
  kernel_pullback(d_qkv, qkv_in, d_result, [&](float* dqkv, const Tensor& g) {
    const Tensor qkv = qkv_in.contiguous();
    // The probabilities again: the forward's are not passed to a pullback.
    float* att = current_arena().allocate(std::size_t(B) * n_head * T * T);
    float* att_sum = current_arena().allocate(std::size_t(B) * n_head * T);
    float* out = current_arena().allocate(std::size_t(B) * T * n_head * hs);
    kernels::grouped_attention_forward(out, att, att_sum, qkv.data, B, T, n_head, n_kv_head, hs);
    float* scratch = current_arena().allocate(std::size_t(B) * n_head * T);
    kernels::grouped_attention_backward(dqkv, scratch, g.data, qkv.data, att, B, T, n_head, n_kv_head, hs);
  });
}

}  // namespace custom_derivatives

}  // namespace adjoint
