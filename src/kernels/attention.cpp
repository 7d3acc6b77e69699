// Causal multi-head self-attention.
#include <algorithm>
#include <cmath>
#include <limits>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {
namespace {

// Attention of the query at position t of one head over keys/values 0..t.
// qkv rows have stride 3C; q, k, v of head h start at h*hs, C + h*hs, 2C + h*hs.
// Writes out_h (hs) and the probabilities att_row (T, zero after t).
template <typename F>
void attend_one_query(F* out_h, F* att_row, const F* qkv_b, int t, int T, int C, int h, int hs) {
  const std::size_t stride = 3 * (std::size_t)C;
  const F scale = 1 / std::sqrt(F(hs));
  const F* q = qkv_b + t * stride + h * hs;
  F maxval = std::numeric_limits<F>::lowest();
  for (int t2 = 0; t2 <= t; t2++) {
    const F* k = qkv_b + t2 * stride + C + h * hs;
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
    const F* v = qkv_b + t2 * stride + 2 * C + h * hs;
    const F p = att_row[t2];
    for (int i = 0; i < hs; i++) out_h[i] += p * v[i];
  }
}

}  // namespace

template <typename F>
void attention_forward(F* out, F* att, const F* qkv, int B, int T, int C, int NH) {
  const int hs = C / NH;
#pragma omp parallel for collapse(3)
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++)
      for (int t = 0; t < T; t++) {
        const F* qkv_b = qkv + (std::size_t)b * T * 3 * C;
        F* out_h = out + ((std::size_t)b * T + t) * C + h * hs;
        F* att_row = att + (((std::size_t)b * NH + h) * T + t) * T;
        attend_one_query(out_h, att_row, qkv_b, t, T, C, h, hs);
      }
}

template <typename F>
void attention_forward_position(F* out, F* att_row, const F* qkv_cache, int t, int C, int NH) {
  const int hs = C / NH;
  for (int h = 0; h < NH; h++) attend_one_query(out + h * hs, att_row, qkv_cache, t, t + 1, C, h, hs);
}

// Keys and values of one (b, h) receive gradient from every later query, so work is split
// by (b, h): each task owns its slice of dqkv and needs no atomics.
template <typename F>
void attention_backward(F* dqkv, F* scratch, const F* dout, const F* qkv, const F* att, int B,
                        int T, int C, int NH) {
  const int hs = C / NH;
  const std::size_t stride = 3 * (std::size_t)C;
  const F scale = 1 / std::sqrt(F(hs));
#pragma omp parallel for collapse(2)
  for (int b = 0; b < B; b++)
    for (int h = 0; h < NH; h++) {
      F* datt = scratch + ((std::size_t)b * NH + h) * T;
      const F* qkv_b = qkv + (std::size_t)b * T * stride;
      F* dqkv_b = dqkv + (std::size_t)b * T * stride;
      for (int t = 0; t < T; t++) {
        const F* att_row = att + (((std::size_t)b * NH + h) * T + t) * T;
        const F* dout_h = dout + ((std::size_t)b * T + t) * C + h * hs;
        // Through out = Σ p·v: dp and dv.
        F p_dot_datt = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          const F* v = qkv_b + t2 * stride + 2 * C + h * hs;
          F* dv = dqkv_b + t2 * stride + 2 * C + h * hs;
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
          const F* k = qkv_b + t2 * stride + C + h * hs;
          F* dk = dqkv_b + t2 * stride + C + h * hs;
          for (int i = 0; i < hs; i++) {
            dq[i] += dpre * k[i];
            dk[i] += dpre * q[i];
          }
        }
      }
    }
}

template void attention_forward<float>(float*, float*, const float*, int, int, int, int);
template void attention_forward<double>(double*, double*, const double*, int, int, int, int);
template void attention_forward_position<float>(float*, float*, const float*, int, int, int);
template void attention_forward_position<double>(double*, double*, const double*, int, int, int);
template void attention_backward<float>(float*, float*, const float*, const float*, const float*,
                                        int, int, int, int);
template void attention_backward<double>(double*, double*, const double*, const double*,
                                         const double*, int, int, int, int);

}  // namespace adjoint::kernels
