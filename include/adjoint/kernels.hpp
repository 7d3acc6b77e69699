// The GPT-2 and Llama kernels: one plain function per operation, forward beside backward.
//
// Shapes are row-major and written in the comment above each function. N is a number of
// rows (B*T), C channels, OC output channels, NH (query) heads, NKV key/value heads, hs the
// channels of one head, V the real vocabulary and Vp the padded one. Backward functions *accumulate* into parameter and input gradients (+=), so
// gradient accumulation needs no extra pass; callers zero gradients once (the optimizer does
// it as it consumes them). Each kernel is instantiated for float (training) and double
// (finite-difference tests); all are deterministic for a fixed thread count.
#pragma once
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace adjoint::kernels {

// The models' forward kernels other than the matmuls are defined here, so that adjc sees their
// loops from src/llm/gpt2/forward.cpp and src/llm/llama/forward.cpp: the generated backward derives
// the reverse of the encoder, layernorm, both attentions, RMSNorm, RoPE, SwiGLU, GELU, the residual
// add and softmax + cross-entropy from them. The backward kernels and the matmuls are defined in
// src/kernels.

// The embeddings run parallel over blocks of W channels (W the largest power of two up to 64
// that divides C), rows inside, the block's channels innermost. In adjc's reverse each thread
// then owns its blocks of channels of wte's adjoint, whose rows repeated tokens share, so it needs
// no atomics and stays deterministic, and it walks the rows in order, W contiguous channels at a
// time. Indices are written as mixed-radix numbers (row, block, channel): that is how adjc proves
// each block owns its elements.
inline int channel_block(int C) {
  int W = 64;
  while (C % W != 0) W /= 2;
  return W;
}

// out (B,T,C) = wte[inp[b,t]] (V,C): the token embedding (Llama's whole embedding).
template <typename F>
void embedding_forward(F* out, const int* inp, const F* wte, int B, int T, int C) {
  const int W = channel_block(C), blocks = C / W;
#pragma omp parallel for
  for (int j = 0; j < blocks; j++)
    for (int bt = 0; bt < B * T; bt++)
      for (int k = 0; k < W; k++)
        out[((std::size_t)bt * blocks + j) * W + k] = wte[((std::size_t)inp[bt] * blocks + j) * W + k];
}

// out (B,T,C) += wpe[t] (maxT,C): the position embedding, parallel over channel blocks as above.
template <typename F>
void add_position_embedding(F* out, const F* wpe, int B, int T, int C) {
  const int W = channel_block(C), blocks = C / W;
#pragma omp parallel for
  for (int j = 0; j < blocks; j++)
    for (int b = 0; b < B; b++)
      for (int t = 0; t < T; t++)
        for (int k = 0; k < W; k++)
          out[(((std::size_t)b * T + t) * blocks + j) * W + k] += wpe[((std::size_t)t * blocks + j) * W + k];
}

// out (B,T,C) = wte[inp[b,t]] (V,C) + wpe[t] (maxT,C); wpe (and dwpe) may be null: no position
// embedding (Llama).
template <typename F>
void encoder_forward(F* out, const int* inp, const F* wte, const F* wpe, int B, int T, int C) {
  embedding_forward(out, inp, wte, B, T, C);
  if (wpe) add_position_embedding(out, wpe, B, T, C);
}
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int* inp, int B, int T, int C);

// out (N,C) = (inp - mean) * rstd * weight (C) + bias (C); mean, rstd (N) are kept for backward.
template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias, int N, int C) {
  const F eps = 1e-5;
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const F* x = inp + (std::size_t)i * C;
    // The mean is read back from memory, so adjc's reverse takes it from there instead of running
    // the sum again (nothing is taped per row); the variance's plain sum it runs again.
    F sum = 0;
    for (int c = 0; c < C; c++) sum += x[c];
    mean[i] = sum / C;
    const F m = mean[i];
    F sum_squares = 0;
    for (int c = 0; c < C; c++) sum_squares += (x[c] - m) * (x[c] - m);
    const F s = 1 / std::sqrt(sum_squares / C + eps);
    F* y = out + (std::size_t)i * C;
    for (int c = 0; c < C; c++) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    rstd[i] = s;
  }
}
// dweight and dbias may both be null (frozen).
template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight, const F* mean,
                        const F* rstd, int N, int C);

// out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias (OC); bias may be null.
template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int N, int C, int OC);
// dbias may be null.
template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight, int N, int C, int OC);

// Causal self-attention. qkv (B,T,3C) holds q, k, v side by side; out (B,T,C);
// att (B,NH,T,T) keeps the softmax probabilities (zero above the diagonal) for backward, att_sum
// (B,NH,T) each row's softmax denominator (what adjc's reverse needs of the row besides them). Only
// the reverse may read att_sum (its adjoint must be zero): its values depend on the row maximum,
// which adjc holds constant, so they are no output to differentiate. It is
// grouped_attention_forward with as many key/value heads as query heads (defined below).
template <typename F>
void attention_forward(F* out, F* att, F* att_sum, const F* qkv, int B, int T, int C, int NH);
// dqkv (B,T,3C) accumulates; scratch holds B*NH*T elements.
template <typename F>
void attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B, int T, int C, int NH);
// One new query against a cache of the positions so far, for sampling with a KV cache:
// qkv_cache (T,3C) holds rows 0..t (row t is the new position); out (C); att_row scratch (T).
template <typename F>
void attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int C, int NH);

// Causal self-attention with grouped query heads: query head h uses key/value head h / (NH/NKV),
// shared, not copied (NH % NKV == 0). qkv (B,T,(NH+2·NKV)·hs) holds per row the NH query heads,
// then the NKV key heads, then the NKV value heads; out (B,T,NH·hs); att (B,NH,T,T) and att_sum
// (B,NH,T) as above. attention_forward is the case NKV = NH, hs = C/NH.
template <typename F>
void grouped_attention_forward(F* out, F* att, F* att_sum, const F* qkv, int B, int T, int NH, int NKV, int hs);
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

// Attention of one query q (hs) at position t over the keys and values of positions 0..t: key
// and value of position t2 at k0 + t2·stride and v0 + t2·stride. Writes out_h (hs) and the
// probabilities att_row (T, zero after t).
template <typename F>
void attend_one_query(F* out_h, F* att_row, const F* q, const F* k0, const F* v0, std::size_t stride, int t, int T,
                      int hs) {
  const F scale = 1 / std::sqrt(F(hs));
  F maxval = std::numeric_limits<F>::lowest();
  for (int t2 = 0; t2 <= t; t2++) {
    const F* k = k0 + t2 * stride;
    F dot = 0;
    for (int i = 0; i < hs; i++) dot += q[i] * k[i];
    dot *= scale;
    att_row[t2] = dot;
    maxval = std::max(maxval, dot);
  }
  F sum = 0;
  for (int t2 = 0; t2 <= t; t2++) {
    att_row[t2] = std::exp(att_row[t2] - maxval);
    sum += att_row[t2];
  }
  const F inv_sum = 1 / sum;
  for (int t2 = 0; t2 <= t; t2++) att_row[t2] *= inv_sum;
  for (int t2 = t + 1; t2 < T; t2++) att_row[t2] = 0;

  for (int i = 0; i < hs; i++) out_h[i] = 0;
  for (int t2 = 0; t2 <= t; t2++) {
    const F* v = v0 + t2 * stride;
    const F p = att_row[t2];
    for (int i = 0; i < hs; i++) out_h[i] += p * v[i];
  }
}

// Query head h of position t in packed qkv rows (stride (NH + 2·NKV)·hs): query head h at h·hs,
// key head g = h / (NH/NKV) at (NH + g)·hs, value head g at (NH + NKV + g)·hs.
template <typename F>
void attend_packed(F* out_h, F* att_row, const F* qkv_b, int t, int T, int NH, int NKV, int hs, int h) {
  const std::size_t stride = (std::size_t)(NH + 2 * NKV) * hs;
  const int g = h / (NH / NKV);
  attend_one_query(out_h, att_row, qkv_b + t * stride + h * hs, qkv_b + (NH + g) * hs, qkv_b + (NH + NKV + g) * hs,
                   stride, t, T, hs);
}

// Grouped attention as plain loops, for adjc to differentiate: parallel over key/value heads g,
// with the group's query heads g·G + j and every batch row and position inside g's iteration. A
// query's reverse adds into the key and value adjoints of every earlier position of its group,
// which are then the iteration's own, so the derived reverse needs no atomics. The packed row is
// spelled in NKV and G (NH = NKV·G) so that adjc proves that ownership: in each row of `stride`
// elements, query heads g·G + j fill [0, NKV·G·hs), key heads [NKV·G·hs, (NKV·G + NKV)·hs) and value
// heads the rest, group g owning slices of each (docs/adjc-internals.md, iteration.cpp). att,
// att_sum and out are indexed as mixed-radix numbers with digit g below NKV, the same proof GPT-2's
// packed row had. The row's sum goes to att_sum and the normalisation reads it back from there, so
// the reverse recomputes the reciprocal from memory instead of taping a value per row. (Calls of
// differentiated functions inside a parallel loop are not supported, hence no attend_one_query.)
template <typename F>
void grouped_attention_forward(F* out, F* att, F* att_sum, const F* qkv, int B, int T, int NH, int NKV, int hs) {
  const int G = NH / NKV;
  const std::size_t stride = (std::size_t)(G + 2) * NKV * hs;
  const F scale = 1 / std::sqrt(F(hs));
#pragma omp parallel for
  for (int g = 0; g < NKV; g++)
    for (int b = 0; b < B; b++)
      for (int j = 0; j < G; j++)
        for (int t = 0; t < T; t++) {
          const F* q = qkv + ((std::size_t)b * T + t) * stride + (std::size_t)(g * G + j) * hs;
          F* att_row = att + ((((std::size_t)b * NKV + g) * G + j) * T + t) * T;
          // The masked positions first: written before the scores, their zeros never stand between
          // the exponentials and the reverse that reads them back.
          for (int t2 = t + 1; t2 < T; t2++) att_row[t2] = 0;
          // The maximum only keeps exp from overflowing (its total derivative is 0).
          ADJOINT_NON_DIFFERENTIABLE F maxval = std::numeric_limits<F>::lowest();
          for (int t2 = 0; t2 <= t; t2++) {
            const F* k = qkv + ((std::size_t)b * T + t2) * stride + ((std::size_t)NKV * G + g) * hs;
            F dot = 0;
            for (int i = 0; i < hs; i++) dot += q[i] * k[i];
            att_row[t2] = dot * scale;
            maxval = std::max(maxval, att_row[t2]);
          }
          F sum = 0;
          for (int t2 = 0; t2 <= t; t2++) {
            att_row[t2] = std::exp(att_row[t2] - maxval);
            sum += att_row[t2];
          }
          // Indexed in place (not through a local) so that adjc sees the row as the group's own.
          att_sum[(((std::size_t)b * NKV + g) * G + j) * T + t] = sum;
          const F inv_sum = 1 / att_sum[(((std::size_t)b * NKV + g) * G + j) * T + t];
          for (int t2 = 0; t2 <= t; t2++) att_row[t2] *= inv_sum;
          F* out_h = out + ((((std::size_t)b * T + t) * NKV + g) * G + j) * hs;
          for (int i = 0; i < hs; i++) out_h[i] = 0;
          for (int t2 = 0; t2 <= t; t2++) {
            const F* v = qkv + ((std::size_t)b * T + t2) * stride + ((std::size_t)NKV * G + NKV + g) * hs;
            const F p = att_row[t2];
            for (int i = 0; i < hs; i++) out_h[i] += p * v[i];
          }
        }
}

template <typename F>
void attention_forward(F* out, F* att, F* att_sum, const F* qkv, int B, int T, int C, int NH) {
  grouped_attention_forward(out, att, att_sum, qkv, B, T, NH, NH, C / NH);
}

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
void rmsnorm_backward(F* dinp, F* dweight, const F* dout, const F* inp, const F* weight, const F* rstd, int N, int C);

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
// target is no_target. To adjc the probabilities carry no derivative of their own: their adjoint
// must be zero on entry (nothing may read them but the hand-written backward and sampling).
//
// The loss is log Σ exp(z) - z[target], and log Σ exp(z) = c + log Σ exp(z - c) for any constant
// shift c. A first pass finds lse = log Σ exp(z) (shifted by the maximum, so exp cannot
// overflow); with c = lse the exponentials of the second pass are the probabilities themselves,
// and Σ p (1 up to rounding) carries the loss's derivative. adjc holds lse constant, so the
// derived reverse is llm.c's backward: one pass per row, dz = dloss · p read back from probs,
// the target's logit apart, outside the loop.
template <typename F>
void softmax_crossentropy_forward(F* losses, F* probs, const F* logits, const int* targets, int N, int V, int Vp) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const F* z = logits + (std::size_t)i * Vp;
    F* p = probs + (std::size_t)i * Vp;
    for (int v = V; v < Vp; v++) p[v] = 0;
    ADJOINT_NON_DIFFERENTIABLE F maxval = std::numeric_limits<F>::lowest();
    for (int v = 0; v < V; v++) maxval = std::max(maxval, z[v]);
    const int target = targets[i];
    ADJOINT_NON_DIFFERENTIABLE F sum = 0;
    for (int v = 0; v < V; v++) sum += std::exp(z[v] - maxval);
    ADJOINT_NON_DIFFERENTIABLE const F lse = maxval + std::log(sum);
    F sum_p = 0, target_logit = 0;
    for (int v = 0; v < V; v++) {
      target_logit += v == target ? z[v] : F(0);  // read before p[v] may overwrite it
      p[v] = std::exp(z[v] - lse);
      sum_p += p[v];
    }
    // -log p[target] from the logit, accurate even where the probability underflows.
    losses[i] = target != no_target ? lse + std::log(sum_p) - target_logit : F(0);
  }
}
// dlogits (N,Vp) is overwritten and may alias probs; dlosses (N) is the loss's adjoint. Rows whose
// target is no_target get 0.
template <typename F>
void softmax_crossentropy_backward(F* dlogits, const F* probs, const int* targets, const F* dlosses, int N, int V,
                                   int Vp);

}  // namespace adjoint::kernels
