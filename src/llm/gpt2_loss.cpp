// The GPT-2 forward pass, written once as an ordinary function over the arenas and kernels. The
// engine runs it for every forward; with adjc (adjoint_add_gradients in src/CMakeLists.txt) its
// backward is also generated at build time, the kernels taking their hand-optimised backward
// through the custom pullbacks below, except GELU and the residual add, whose backward adjc derives
// from their loops (adjoint/kernels.hpp).
#include <adjoint/ad.hpp>

#include <cstring>

#include "adjoint/gpt2.hpp"
#include "adjoint/kernels.hpp"

namespace adjoint {

// Custom pullbacks: adjc calls them in the reverse sweep with the forward call's arguments and
// one adjoint per floating pointer parameter. Each adds into its inputs' adjoints and then
// clears the adjoint of the output it consumed (the output was overwritten), so buffers that
// are reused, like the projection scratch, start every use from zero.
// logits (N,Vp) = inp (N,C) · wte (Vp,C)ᵀ: the tied LM head, a matmul without bias.
inline void lm_head_forward(float* logits, const float* inp, const float* wte, int N, int C, int Vp) {
  kernels::matmul_forward(logits, inp, wte, static_cast<const float*>(nullptr), N, C, Vp);
}

namespace custom_derivatives {

using namespace kernels;

inline void clear(float* adjoint, std::size_t count) { std::memset(adjoint, 0, count * sizeof(float)); }

inline void encoder_forward_pullback(float*, const int* inp, const float*, const float*, int B, int T, int C,
                                     float* d_out, float* d_wte, float* d_wpe) {
  encoder_backward(d_wte, d_wpe, d_out, inp, B, T, C);
  clear(d_out, (std::size_t)B * T * C);
}

// mean and rstd only carry values to this pullback: their adjoints stay zero.
inline void layernorm_forward_pullback(float*, float* mean, float* rstd, const float* inp, const float* weight,
                                       const float*, int N, int C, float* d_out, float*, float*, float* d_inp,
                                       float* d_weight, float* d_bias) {
  layernorm_backward(d_inp, d_weight, d_bias, d_out, inp, weight, mean, rstd, N, C);
  clear(d_out, (std::size_t)N * C);
}

inline void matmul_forward_pullback(float*, const float* inp, const float* weight, const float*, int N, int C, int OC,
                                    float* d_out, float* d_inp, float* d_weight, float* d_bias) {
  matmul_backward(d_inp, d_weight, d_bias, d_out, inp, weight, N, C, OC);
  clear(d_out, (std::size_t)N * OC);
}

// att only carries probabilities to this pullback, so its adjoint is zero on entry: its first
// B*NH*T elements serve as the kernel's scratch and are cleared again.
inline void attention_forward_pullback(float*, float* att, const float* qkv, int B, int T, int C, int NH,
                                       float* d_out, float* d_att, float* d_qkv) {
  attention_backward(d_qkv, d_att, d_out, qkv, att, B, T, C, NH);
  clear(d_att, (std::size_t)B * NH * T);
  clear(d_out, (std::size_t)B * T * C);
}

// probs is written in place over the logits and only the losses are used after it, so the
// adjoint of probs is zero and the logits' adjoint (the same memory) is written, not added to.
inline void softmax_crossentropy_forward_pullback(float*, float* probs, const float*, const int* targets, int N, int V,
                                                  int Vp, float* d_losses, float*, float* d_logits) {
  softmax_crossentropy_backward(d_logits, probs, targets, d_losses, N, V, Vp);
  clear(d_losses, (std::size_t)N);
}

inline void lm_head_forward_pullback(float*, const float* inp, const float* wte, int N, int C, int Vp, float* d_logits,
                                     float* d_inp, float* d_wte) {
  matmul_backward(d_inp, d_wte, static_cast<float*>(nullptr), d_logits, inp, wte, N, C, Vp);
  clear(d_logits, (std::size_t)N * Vp);
}

}  // namespace custom_derivatives

using namespace kernels;

// The logits (B,T,Vp) of GPT-2 for inputs (B,T), in a.probs; `a` receives the activations. Each
// activation element is written once (ADJOINT_WRITE_ONCE), so the generated forward sweep tapes
// no activations. Block l's activations are a.layers[l] (not offsets into stacked arrays), so the
// adjoints can give every layer the same memory (GPT2's adjoint_views).
void gpt2_logits(const ParameterTensors& p, ADJOINT_WRITE_ONCE ActivationTensors& a, const int* inputs, int B,
                 int T, int C, int NH, int L, int Vp) {
  const int N = B * T;
  const long NC = (long)N * C;
  encoder_forward(a.residual, inputs, p.wte, p.wpe, B, T, C);
  for (int l = 0; l < L; l++) {
    layernorm_forward(a.layers[l].ln1, a.layers[l].ln1_mean, a.layers[l].ln1_rstd, a.residual + l * NC,
                      p.ln1w + l * C, p.ln1b + l * C, N, C);
    matmul_forward(a.layers[l].qkv, a.layers[l].ln1, p.qkvw + (long)l * 3 * C * C, p.qkvb + l * 3 * C, N, C, 3 * C);
    attention_forward(a.layers[l].atty, a.layers[l].att, a.layers[l].qkv, B, T, C, NH);
    matmul_forward(a.proj, a.layers[l].atty, p.attprojw + (long)l * C * C, p.attprojb + l * C, N, C, C);
    residual_forward(a.layers[l].residual2, a.residual + l * NC, a.proj, NC);
    layernorm_forward(a.layers[l].ln2, a.layers[l].ln2_mean, a.layers[l].ln2_rstd, a.layers[l].residual2,
                      p.ln2w + l * C, p.ln2b + l * C, N, C);
    matmul_forward(a.layers[l].fch, a.layers[l].ln2, p.fcw + (long)l * 4 * C * C, p.fcb + l * 4 * C, N, C, 4 * C);
    gelu_forward(a.layers[l].fch_gelu, a.layers[l].fch, NC * 4);
    matmul_forward(a.proj, a.layers[l].fch_gelu, p.fcprojw + (long)l * 4 * C * C, p.fcprojb + l * C, N, 4 * C, C);
    residual_forward(a.residual + (l + 1) * NC, a.layers[l].residual2, a.proj, NC);
  }
  layernorm_forward(a.lnf, a.lnf_mean, a.lnf_rstd, a.residual + L * NC, p.lnfw, p.lnfb, N, C);
  lm_head_forward(a.probs, a.lnf, p.wte, N, C, Vp);
}

// Mean cross-entropy of GPT-2 on inputs/targets (B,T).
float gpt2_loss(const ParameterTensors& p, ADJOINT_WRITE_ONCE ActivationTensors& a, const int* inputs,
                const int* targets, int B, int T, int C, int NH, int L, int V, int Vp) {
  gpt2_logits(p, a, inputs, B, T, C, NH, L, Vp);
  const int N = B * T;
  softmax_crossentropy_forward(a.losses, a.probs, a.probs, targets, N, V, Vp);
  double loss = 0;  // as the hand-written forward sums it, so both report the same loss
  for (int i = 0; i < N; i++) loss += a.losses[i];
  return float(loss / N);
}

}  // namespace adjoint

#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
namespace adjoint {

// The generated sweeps (adjc defines them below this file's code in its output).
inline float gpt2_loss_forward(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                               int B, int T, int C, int NH, int L, int V, int Vp);
inline void gpt2_loss_reverse(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                              int B, int T, int C, int NH, int L, int V, int Vp, float d_loss, ParameterTensors* d_p,
                              ActivationTensors* d_a);

float gpt2_generated_forward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) {
  const float loss = gpt2_loss_forward(p, a, inputs, targets, B, T, c.channels, c.num_heads, c.num_layers,
                                       c.vocab_size, c.padded_vocab_size);
  *tape_bytes = thread_tape_bytes();  // the tape is fullest between the sweeps
  return loss;
}

void gpt2_generated_backward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, ParameterTensors& d_p,
                             ActivationTensors& d_a) {
  gpt2_loss_reverse(p, a, inputs, targets, B, T, c.channels, c.num_heads, c.num_layers, c.vocab_size,
                    c.padded_vocab_size, 1.0f, &d_p, &d_a);
}

}  // namespace adjoint

// The request that makes adjc generate gpt2_loss's sweeps (at global scope: adjc declares the
// generated functions where the request stands). Returns the generated source, for people.
static const char* gpt2_loss_gradient_source() { return adjoint::gradient(adjoint::gpt2_loss, "p, a").source(); }

const char* adjoint::generated_backward_source() { return gpt2_loss_gradient_source(); }
#endif
