// The Llama forward pass, written once as an ordinary function over the arenas and kernels.
#include "adjoint/kernels.hpp"
#include "adjoint/llama.hpp"

namespace adjoint {

using namespace kernels;

// The logits (B,T,V) of Llama for inputs (B,T), in a.probs; `a` receives the activations.
// H is the SwiGLU hidden size; a.rope_cos/rope_sin hold RoPE's table for positions 0..T-1.
void llama_logits(const LlamaParameters& p, LlamaActivations& a, const int* inputs, int B, int T, int C, int NH,
                  int NKV, int H, int L, int V, float eps) {
  const int N = B * T, hs = C / NH, QKV = (NH + 2 * NKV) * hs;
  const long NC = (long)N * C;
  encoder_forward(a.residual, inputs, p.wte, static_cast<const float*>(nullptr), B, T, C);
  for (int l = 0; l < L; l++) {
    LlamaLayerActivations& x = a.layers[l];
    rmsnorm_forward(x.ln1, x.ln1_rstd, a.residual + l * NC, p.ln1w + l * C, N, C, eps);
    matmul_forward(x.qkv, x.ln1, p.qkvw + (long)l * QKV * C, static_cast<const float*>(nullptr), N, C, QKV);
    rope_forward(x.qkvr, x.qkv, a.rope_cos, a.rope_sin, B, T, NH + NKV, NH + 2 * NKV, hs);
    grouped_attention_forward(x.atty, x.att, x.qkvr, B, T, NH, NKV, hs);
    matmul_forward(a.proj, x.atty, p.attprojw + (long)l * C * C, static_cast<const float*>(nullptr), N, C, C);
    residual_forward(x.residual2, a.residual + l * NC, a.proj, NC);
    rmsnorm_forward(x.ln2, x.ln2_rstd, x.residual2, p.ln2w + l * C, N, C, eps);
    matmul_forward(x.fc, x.ln2, p.fcw + (long)l * H * C, static_cast<const float*>(nullptr), N, C, H);
    matmul_forward(x.fc2, x.ln2, p.fc2w + (long)l * H * C, static_cast<const float*>(nullptr), N, C, H);
    swiglu_forward(x.swiglu, x.fc2, x.fc, (std::size_t)N * H);
    matmul_forward(a.proj, x.swiglu, p.fcprojw + (long)l * H * C, static_cast<const float*>(nullptr), N, H, C);
    residual_forward(a.residual + (l + 1) * NC, x.residual2, a.proj, NC);
  }
  rmsnorm_forward(a.lnf, a.lnf_rstd, a.residual + L * NC, p.lnfw, N, C, eps);
  matmul_forward(a.probs, a.lnf, p.lm_head, static_cast<const float*>(nullptr), N, C, V);
}

// Mean cross-entropy of Llama on inputs/targets (B,T).
float llama_loss(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const int* targets, int B, int T,
                 int C, int NH, int NKV, int H, int L, int V, float eps) {
  llama_logits(p, a, inputs, B, T, C, NH, NKV, H, L, V, eps);
  const int N = B * T;
  softmax_crossentropy_forward(a.losses, a.probs, a.probs, targets, N, V, V);
  double loss = 0;
  for (int i = 0; i < N; i++) loss += a.losses[i];
  return float(loss / N);
}

}  // namespace adjoint
