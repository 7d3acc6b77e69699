// The GPT-2 forward pass, written once as an ordinary function over the arenas and kernels. The
// arrays engine runs it for every forward; with adjc (adjoint_add_gradients in src/CMakeLists.txt) its
// backward is also generated at build time: adjc derives the backward of the encoder, layernorm,
// attention, GELU, the residual add and softmax + cross-entropy from their loops
// (adjoint/kernels.hpp), while the matmuls keep their hand-optimised backward through the custom
// pullbacks of kernel_pullbacks.hpp.
#include <adjoint/ad.hpp>

#include <cstring>

#include "adjoint/gpt2.hpp"
#include "adjoint/kernels.hpp"
#include "../kernel_pullbacks.hpp"

namespace adjoint {


using namespace kernels;

// The logits (B,T,Vp) of GPT-2 for inputs (B,T), in a.probs; `a` receives the activations. Each
// activation element is written once (ADJOINT_WRITE_ONCE), so the generated forward sweep tapes
// no activations. Block l's activations are a.layers[l] (not offsets into stacked arrays), so the
// adjoints can give every layer the same memory (adjoint_views in src/llm/layout.hpp).
// lora: the LoRA adapters whose outputs the projections add (null: none).
void gpt2_logits(const ParameterTensors& p, ADJOINT_WRITE_ONCE ActivationTensors& a, const int* inputs,
                 const LoraAdapters* lora, int B, int T, int C, int NH, int L, int Vp) {
  const int N = B * T;
  const long NC = (long)N * C;
  encoder_forward(a.residual, inputs, p.wte, p.wpe, B, T, C);
  for (int l = 0; l < L; l++) {
    layernorm_forward(a.layers[l].ln1, a.layers[l].ln1_mean, a.layers[l].ln1_rstd, a.residual + l * NC,
                      p.ln1w + l * C, p.ln1b + l * C, N, C);
    adapted_matmul_forward(a.layers[l].qkv, a.layers[l].ln1, p.qkvw + (long)l * 3 * C * C, p.qkvb + l * 3 * C, lora,
                           kGpt2Qkvw, l, N, C, 3 * C);
    attention_forward(a.layers[l].atty, a.layers[l].att, a.layers[l].att_sum, a.layers[l].qkv, B, T, C, NH);
    adapted_matmul_forward(a.proj, a.layers[l].atty, p.attprojw + (long)l * C * C, p.attprojb + l * C, lora,
                           kGpt2Attprojw, l, N, C, C);
    residual_forward(a.layers[l].residual2, a.residual + l * NC, a.proj, NC);
    layernorm_forward(a.layers[l].ln2, a.layers[l].ln2_mean, a.layers[l].ln2_rstd, a.layers[l].residual2,
                      p.ln2w + l * C, p.ln2b + l * C, N, C);
    adapted_matmul_forward(a.layers[l].fch, a.layers[l].ln2, p.fcw + (long)l * 4 * C * C, p.fcb + l * 4 * C, lora,
                           kGpt2Fcw, l, N, C, 4 * C);
    gelu_forward(a.layers[l].fch_gelu, a.layers[l].fch, NC * 4);
    adapted_matmul_forward(a.proj, a.layers[l].fch_gelu, p.fcprojw + (long)l * 4 * C * C, p.fcprojb + l * C, lora,
                           kGpt2Fcprojw, l, N, 4 * C, C);
    residual_forward(a.residual + (l + 1) * NC, a.layers[l].residual2, a.proj, NC);
  }
  layernorm_forward(a.lnf, a.lnf_mean, a.lnf_rstd, a.residual + L * NC, p.lnfw, p.lnfb, N, C);
  linear_forward(a.probs, a.lnf, p.wte, N, C, Vp);
}

// Mean cross-entropy of GPT-2 on inputs/targets (B,T).
float gpt2_loss(const ParameterTensors& p, ADJOINT_WRITE_ONCE ActivationTensors& a, const int* inputs,
                const int* targets, const LoraAdapters* lora, int B, int T, int C, int NH, int L, int V, int Vp) {
  gpt2_logits(p, a, inputs, lora, B, T, C, NH, L, Vp);
  const int N = B * T;
  softmax_crossentropy_forward(a.losses, a.probs, a.probs, targets, N, V, Vp);
  return mean_loss(a.losses, targets, N);
}

}  // namespace adjoint

#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
namespace adjoint {

// The generated sweeps (adjc defines them below this file's code in its output).
inline float gpt2_loss_forward(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                               const LoraAdapters* lora, int B, int T, int C, int NH, int L, int V, int Vp);
inline void gpt2_loss_reverse(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                              const LoraAdapters* lora, int B, int T, int C, int NH, int L, int V, int Vp, float d_loss,
                              ParameterTensors* d_p, ActivationTensors* d_a, inactive d_lora);
// LoRA's: the activations only (the request "a"), so the base's weights are inactive.
inline void gpt2_loss_reverse(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                              const LoraAdapters* lora, int B, int T, int C, int NH, int L, int V, int Vp, float d_loss,
                              inactive d_p, ActivationTensors* d_a, inactive d_lora);

float gpt2_generated_forward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) {
  const float loss = gpt2_loss_forward(p, a, inputs, targets, nullptr, B, T, c.channels, c.num_heads, c.num_layers,
                                       c.vocab_size, c.padded_vocab_size);
  *tape_bytes = thread_tape_bytes();  // the tape is fullest between the sweeps
  return loss;
}

void gpt2_generated_backward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, ParameterTensors& d_p,
                             ActivationTensors& d_a) {
  gpt2_loss_reverse(p, a, inputs, targets, nullptr, B, T, c.channels, c.num_heads, c.num_layers, c.vocab_size,
                    c.padded_vocab_size, 1.0f, &d_p, &d_a, inactive{});
}

float gpt2_lora_generated_forward_backward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                                           const int* inputs, const int* targets, const LoraAdapters& lora, int B,
                                           int T, ActivationTensors& d_a, std::size_t* tape_bytes) {
  const int C = c.channels, NH = c.num_heads, L = c.num_layers, V = c.vocab_size, Vp = c.padded_vocab_size;
  const float loss = gpt2_loss_forward(p, a, inputs, targets, &lora, B, T, C, NH, L, V, Vp);
  *tape_bytes = thread_tape_bytes();
  gpt2_loss_reverse(p, a, inputs, targets, &lora, B, T, C, NH, L, V, Vp, 1.0f, inactive{}, &d_a, inactive{});
  return loss;
}

}  // namespace adjoint

// The request that makes adjc generate gpt2_loss's sweeps (at global scope: adjc declares the
// generated functions where the request stands). Returns the generated source, for people.
static const char* gpt2_loss_gradient_source() { return adjoint::gradient(adjoint::gpt2_loss, "p, a").source(); }
// LoRA's request: the weights inactive, so their pullbacks get no weight adjoint and run no dW GEMM.
static const char* gpt2_lora_gradient_source() { return adjoint::gradient(adjoint::gpt2_loss, "a").source(); }

const char* adjoint::generated_backward_source() { return gpt2_loss_gradient_source(); }
const char* adjoint::gpt2_lora_generated_backward_source() { return gpt2_lora_gradient_source(); }
#endif
