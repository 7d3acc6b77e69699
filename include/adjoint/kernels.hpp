// The GPT-2 kernels: one plain function per operation, forward beside backward.
//
// Shapes are row-major and written in the comment above each function. N is a number of
// rows (B*T), C channels, OC output channels, NH heads, V the real vocabulary and Vp the
// padded one. Backward functions *accumulate* into parameter and input gradients (+=), so
// gradient accumulation needs no extra pass; callers zero gradients once (the optimizer does
// it as it consumes them). Each kernel is instantiated for float (training) and double
// (finite-difference tests); all are deterministic for a fixed thread count.
#pragma once
#include <cmath>
#include <cstddef>

namespace adjoint::kernels {

// out (B,T,C) = wte[inp[b,t]] (V,C) + wpe[t] (maxT,C)
template <typename F>
void encoder_forward(F* out, const int* inp, const F* wte, const F* wpe, int B, int T, int C);
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int* inp, int B, int T, int C);

// out (N,C) = (inp - mean) * rstd * weight (C) + bias (C); mean, rstd (N) are kept for backward.
template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias,
                       int N, int C);
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

// GELU and the residual add are defined here rather than in pointwise.cpp: the generated GPT-2
// backward (src/llm/gpt2_loss.cpp) is derived by adjc from these loops, so it needs their bodies.
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

// Softmax over the first V of Vp logits per row, then the cross-entropy against targets.
// probs (N,Vp) may alias logits (N,Vp); padded columns get probability 0. losses (N).
template <typename F>
void softmax_crossentropy_forward(F* losses, F* probs, const F* logits, const int* targets, int N,
                                  int V, int Vp);
// dlogits (N,Vp) is overwritten and may alias probs; dlosses (N) is the loss's adjoint.
template <typename F>
void softmax_crossentropy_backward(F* dlogits, const F* probs, const int* targets,
                                   const F* dlosses, int N, int V, int Vp);

}  // namespace adjoint::kernels
