// The GPT-2 and Llama kernels: one plain function per operation, forward beside backward.
//
// Shapes are row-major and written in the comment above each function. N is a number of
// rows (B*T), C channels, OC output channels, NH (query) heads, NKV key/value heads, hs the
// channels of one head, V the real vocabulary and Vp the padded one. Backward functions *accumulate* into parameter and input gradients (+=), so
// gradient accumulation needs no extra pass; callers zero gradients once (the optimizer does
// it as it consumes them). Each kernel is instantiated for float (training) and double
// (finite-difference tests); all are deterministic for a fixed thread count.
#pragma once
#include <cmath>
#include <cstddef>

namespace adjoint::kernels {

// out (B,T,C) = wte[inp[b,t]] (V,C) + wpe[t] (maxT,C); wpe (and dwpe) may be null: no position
// embedding (Llama).
template <typename F>
void encoder_forward(F* out, const int* inp, const F* wte, const F* wpe, int B, int T, int C);
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int* inp, int B, int T, int C);

// out (N,C) = (inp - mean) * rstd * weight (C) + bias (C); mean, rstd (N) are kept for backward.
template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias,
                       int N, int C);
// dweight and dbias may both be null (frozen).
template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp,
                        const F* weight, const F* mean, const F* rstd, int N, int C);

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias (OC); bias may be null.
template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int N, int C, int OC);
// dbias may be null.
template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp,
                     const F* weight, int N, int C, int OC);

// Causal self-attention. qkv (B,T,3C) holds q, k, v side by side; out (B,T,C);
// att (B,NH,T,T) keeps the softmax probabilities (zero above the diagonal) for backward.
template <typename F>
void attention_forward(F* out, F* att, const F* qkv, int B, int T, int C, int NH);
// dqkv (B,T,3C) accumulates; scratch holds B*NH*T elements.
template <typename F>
void attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B,
                        int T, int C, int NH);
// One new query against a cache of the positions so far, for sampling with a KV cache:
// qkv_cache (T,3C) holds rows 0..t (row t is the new position); out (C); att_row scratch (T).
template <typename F>
void attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int C, int NH);

// Causal self-attention with grouped query heads: query head h uses key/value head h / (NH/NKV),
// shared, not copied (NH % NKV == 0). qkv (B,T,(NH+2·NKV)·hs) holds per row the NH query heads,
// then the NKV key heads, then the NKV value heads; out (B,T,NH·hs); att (B,NH,T,T) as above.
// attention_forward is the case NKV = NH, hs = C/NH.
template <typename F>
void grouped_attention_forward(F* out, F* att, const F* qkv, int B, int T, int NH, int NKV, int hs);
// dqkv accumulates; scratch holds B*NH*T elements.
template <typename F>
void grouped_attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B, int T, int NH,
                                int NKV, int hs);
// qkv_cache (T,(NH+2·NKV)·hs) holds rows 0..t; out (NH·hs); att_row scratch (T).
template <typename F>
void grouped_attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int NH, int NKV, int hs);
// The same from a cache of keys and values only: q (NH·hs) of position t, kv_cache (t+1, 2·NKV·hs)
// holding per position the NKV key heads, then the NKV value heads.
template <typename F>
void grouped_attention_forward_cached(F* out, F* att_row, const F* q, const F* kv_cache, int t, int NH, int NKV,
                                      int hs);

// RMSNorm, RoPE and SwiGLU, like GELU below, are defined here: the generated Llama backward
// (src/llm/llama/forward.cpp) is derived by adjc from these loops.

// out (N,C) = inp · rstd · weight (C) with rstd (N) = 1/sqrt(mean(inp²) + eps), kept for backward.
template <typename F>
void rmsnorm_forward(F* out, F* rstd, const F* inp, const F* weight, int N, int C, float eps) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    F sum_squares = 0;
    for (int c = 0; c < C; c++) sum_squares += inp[(std::size_t)i * C + c] * inp[(std::size_t)i * C + c];
    const F s = 1 / std::sqrt(sum_squares / C + F(eps));
    for (int c = 0; c < C; c++) out[(std::size_t)i * C + c] = inp[(std::size_t)i * C + c] * s * weight[c];
    rstd[i] = s;
  }
}
// dweight may be null (a frozen gain).
template <typename F>
void rmsnorm_backward(F* dinp, F* dweight, const F* dout, const F* inp, const F* weight, const F* rstd, int N,
                      int C);

// Rotary position embedding, Meta's pairing: in each of the first rotated_heads heads of a row,
// channels (2i, 2i+1) are rotated by angle t·freq_i, cos/sin (T, hs/2) holding cos and sin of it
// for positions 0..T-1; the other heads are copied. out, inp (B,T,heads·hs). For a packed qkv row
// the query and key heads are rotated and the value heads copied.
template <typename F>
void rope_forward(F* out, const F* inp, const F* cos, const F* sin, int B, int T, int rotated_heads, int heads,
                  int hs) {
  const int row = heads * hs, half = hs / 2;
#pragma omp parallel for
  for (int bt = 0; bt < B * T; bt++) {
    const int t = bt % T;
    for (int h = 0; h < rotated_heads; h++)
      for (int i = 0; i < half; i++) {
        const std::size_t j = (std::size_t)bt * row + h * hs + 2 * i;
        const F c = cos[t * half + i], s = sin[t * half + i];
        out[j] = inp[j] * c - inp[j + 1] * s;
        out[j + 1] = inp[j] * s + inp[j + 1] * c;
      }
    for (int j = rotated_heads * hs; j < row; j++) out[(std::size_t)bt * row + j] = inp[(std::size_t)bt * row + j];
  }
}
template <typename F>
void rope_backward(F* dinp, const F* dout, const F* cos, const F* sin, int B, int T, int rotated_heads, int heads,
                   int hs);

// out (N) = silu(gate) · up, silu(a) = a·σ(a): SwiGLU between Llama's MLP matmuls.
template <typename F>
void swiglu_forward(F* out, const F* gate, const F* up, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) out[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
}
template <typename F>
void swiglu_backward(F* dgate, F* dup, const F* dout, const F* gate, const F* up, std::size_t N);

// GELU and the residual add are defined here rather than in pointwise.cpp: the generated GPT-2
// backward (src/llm/gpt2/forward.cpp) is derived by adjc from these loops, so it needs their bodies.
inline constexpr double kGeluScale = 0.7978845608028654;  // sqrt(2/pi)
inline constexpr double kGeluCube = 0.044715;

// out (N) = GELU(inp), tanh approximation.
template <typename F>
void gelu_forward(F* out, const F* inp, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    const F x = inp[i];
    out[i] = F(0.5) * x * (1 + std::tanh(F(kGeluScale) * (x + F(kGeluCube) * x * x * x)));
  }
}
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, std::size_t N);

// out (N) = inp1 + inp2
template <typename F>
void residual_forward(F* out, const F* inp1, const F* inp2, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) out[i] = inp1[i] + inp2[i];
}
template <typename F>
void residual_backward(F* dinp1, F* dinp2, const F* dout, std::size_t N);

// A target of no_target marks a position without a loss (a prompt token of instruction data): its
// loss is 0, it passes no gradient, and the mean over a batch counts only the other positions.
inline constexpr int no_target = -1;

// How many of targets (N) are not no_target.
inline int counted_targets(const int* targets, int N) {
  int counted = 0;
  for (int i = 0; i < N; i++) counted += targets[i] != no_target;
  return counted;
}

// The mean of losses (N) over the positions with a target (0 when none has one); the losses of
// the others are 0. Summed in double, as the hand-written forward and the tensor engine sum it.
template <typename F>
F mean_loss(const F* losses, const int* targets, int N) {
  const int counted = counted_targets(targets, N);
  double sum = 0;
  for (int i = 0; i < N; i++) sum += losses[i];
  return counted > 0 ? F(sum / counted) : F(0);
}

// Softmax over the first V of Vp logits per row, then the cross-entropy against targets.
// probs (N,Vp) may alias logits (N,Vp); padded columns get probability 0. losses (N), 0 where the
// target is no_target.
template <typename F>
void softmax_crossentropy_forward(F* losses, F* probs, const F* logits, const int* targets, int N,
                                  int V, int Vp);
// dlogits (N,Vp) is overwritten and may alias probs; dlosses (N) is the loss's adjoint. Rows whose
// target is no_target get 0.
template <typename F>
void softmax_crossentropy_backward(F* dlogits, const F* probs, const int* targets,
                                   const F* dlosses, int N, int V, int Vp);

}  // namespace adjoint::kernels
