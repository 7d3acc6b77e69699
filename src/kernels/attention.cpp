// Causal self-attention with grouped query heads (GPT-2's multi-head attention is the case of as
// many key/value heads as query heads).
#include <algorithm>
#include <cmath>
#include <limits>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {
template <typename F>
void grouped_attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int NH, int NKV, int hs) {
  for (int h = 0; h < NH; h++) attend_packed(out + h * hs, att_row, qkv_cache, t, t + 1, NH, NKV, hs, h);
}

template <typename F>
void grouped_attention_forward_cached(F* out, F* att_row, const F* q, const F* kv_cache, int t, int NH, int NKV,
                                      int hs) {
  const std::size_t stride = 2 * (std::size_t)NKV * hs;
  for (int h = 0; h < NH; h++) {
    const int g = h / (NH / NKV);
    attend_one_query(out + h * hs, att_row, q + h * hs, kv_cache + g * hs, kv_cache + (NKV + g) * hs, stride, t, t + 1,
                     hs);
  }
}

// Keys and values of one (b, key/value head) receive gradient from every later query of every
// query head in its group, so work is split by (b, key/value head): each task owns its slice of
// dqkv (the group's query heads, their key and value head) and needs no atomics.
template <typename F>
void grouped_attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B, int T, int NH,
                                int NKV, int hs) {
  const std::size_t stride = (std::size_t)(NH + 2 * NKV) * hs, C = (std::size_t)NH * hs;
  const int group = NH / NKV;
  const F scale = 1 / std::sqrt(F(hs));
#pragma omp parallel for collapse(2)
  for (int b = 0; b < B; b++)
    for (int g = 0; g < NKV; g++) {
      const F* qkv_b = qkv + (std::size_t)b * T * stride;
      F* dqkv_b = dqkv + (std::size_t)b * T * stride;
      for (int h = g * group; h < (g + 1) * group; h++) {
        F* datt = scratch + ((std::size_t)b * NH + h) * T;
        for (int t = 0; t < T; t++) {
          const F* att_row = att + (((std::size_t)b * NH + h) * T + t) * T;
          const F* dout_h = dout + ((std::size_t)b * T + t) * C + h * hs;
          // Through out = Σ p·v: dp and dv.
          F p_dot_datt = 0;
          for (int t2 = 0; t2 <= t; t2++) {
            const F* v = qkv_b + t2 * stride + (NH + NKV + g) * hs;
            F* dv = dqkv_b + t2 * stride + (NH + NKV + g) * hs;
            F d = 0;
            for (int i = 0; i < hs; i++) {
              d += dout_h[i] * v[i];
              dv[i] += att_row[t2] * dout_h[i];
            }
            datt[t2] = d;
            p_dot_datt += att_row[t2] * d;
          }
          // Through the softmax, then the scaled dot product: dq and dk.
          const F* q = qkv_b + t * stride + h * hs;
          F* dq = dqkv_b + t * stride + h * hs;
          for (int t2 = 0; t2 <= t; t2++) {
            const F dpre = att_row[t2] * (datt[t2] - p_dot_datt) * scale;
            const F* k = qkv_b + t2 * stride + (NH + g) * hs;
            F* dk = dqkv_b + t2 * stride + (NH + g) * hs;
            for (int i = 0; i < hs; i++) {
              dq[i] += dpre * k[i];
              dk[i] += dpre * q[i];
            }
          }
        }
      }
    }
}

template <typename F>
void attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int C, int NH) {
  grouped_attention_forward_position(out, att_row, qkv_cache, t, NH, NH, C / NH);
}

template <typename F>
void attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B, int T, int C, int NH) {
  grouped_attention_backward(dqkv, scratch, dout, qkv, att, B, T, NH, NH, C / NH);
}

#define ADJOINT_INSTANTIATE(F)                                                                                \
  template void grouped_attention_forward<F>(F*, F*, F*, const F*, int, int, int, int, int);                  \
  template void grouped_attention_forward_position<F>(F*, F*, const F*, int, int, int, int);                  \
  template void grouped_attention_forward_cached<F>(F*, F*, const F*, const F*, int, int, int, int);          \
  template void grouped_attention_backward<F>(F*, F*, const F*, const F*, const F*, int, int, int, int, int); \
  template void attention_forward<F>(F*, F*, F*, const F*, int, int, int, int);                               \
  template void attention_forward_position<F>(F*, F*, const F*, int, int, int);                               \
  template void attention_backward<F>(F*, F*, const F*, const F*, const F*, int, int, int, int);
ADJOINT_INSTANTIATE(float)
ADJOINT_INSTANTIATE(double)
#undef ADJOINT_INSTANTIATE

}  // namespace adjoint::kernels
