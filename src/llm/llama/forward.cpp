// The Llama forward pass, written once as an ordinary function over the arenas and kernels. The
// arrays engine runs it for every forward; with adjc its backward is also generated at build time: the
// matmuls keep their hand-written backward through the custom pullbacks of kernel_pullbacks.hpp,
// while the embedding, RMSNorm, RoPE, grouped attention, SwiGLU, the residual add and softmax +
// cross-entropy are differentiated by adjc from their loops (adjoint/kernels.hpp).
#include <adjoint/ad.hpp>

#include "adjoint/kernels.hpp"
#include "adjoint/llama.hpp"
#include "../kernel_pullbacks.hpp"

namespace adjoint {

using namespace kernels;

// The logits (B,T,V) of Llama for inputs (B,T), in a.probs; `a` receives the activations, each
// element written once (ADJOINT_WRITE_ONCE: the generated forward sweep tapes no activations).
// H is the SwiGLU hidden size; rope_cos, rope_sin (T, hs/2) RoPE's table; lora the LoRA adapters
// whose outputs the projections add (null: none).
void llama_logits(const LlamaParameters& p, ADJOINT_WRITE_ONCE LlamaActivations& a, const int* inputs,
                  const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B, int T, int C, int NH,
                  int NKV, int H, int L, int V, float eps) {
  const int N = B * T, hs = C / NH, QKV = (NH + 2 * NKV) * hs;
  const long NC = (long)N * C;
  embedding_forward(a.residual, inputs, p.wte, B, T, C);
  for (int l = 0; l < L; l++) {
    rmsnorm_forward(a.layers[l].ln1, a.layers[l].ln1_rstd, a.residual + l * NC, p.ln1w + l * C, N, C, eps);
    adapted_linear_forward(a.layers[l].qkv, a.layers[l].ln1, p.qkvw + (long)l * QKV * C, lora, kLlamaQkvw, l, N, C,
                           QKV);
    rope_forward(a.layers[l].qkvr, a.layers[l].qkv, rope_cos, rope_sin, B, T, NH + NKV, NH + 2 * NKV, hs);
    grouped_attention_forward(a.layers[l].atty, a.layers[l].att, a.layers[l].att_sum, a.layers[l].qkvr, B, T, NH, NKV,
                              hs);
    adapted_linear_forward(a.proj, a.layers[l].atty, p.attprojw + (long)l * C * C, lora, kLlamaAttprojw, l, N, C, C);
    residual_forward(a.layers[l].residual2, a.residual + l * NC, a.proj, NC);
    rmsnorm_forward(a.layers[l].ln2, a.layers[l].ln2_rstd, a.layers[l].residual2, p.ln2w + l * C, N, C, eps);
    adapted_linear_forward(a.layers[l].fc, a.layers[l].ln2, p.fcw + (long)l * H * C, lora, kLlamaFcw, l, N, C, H);
    adapted_linear_forward(a.layers[l].fc2, a.layers[l].ln2, p.fc2w + (long)l * H * C, lora, kLlamaFc2w, l, N, C, H);
    swiglu_forward(a.layers[l].swiglu, a.layers[l].fc2, a.layers[l].fc, (std::size_t)N * H);
    adapted_linear_forward(a.proj, a.layers[l].swiglu, p.fcprojw + (long)l * H * C, lora, kLlamaFcprojw, l, N, H, C);
    residual_forward(a.residual + (l + 1) * NC, a.layers[l].residual2, a.proj, NC);
  }
  rmsnorm_forward(a.lnf, a.lnf_rstd, a.residual + L * NC, p.lnfw, N, C, eps);
  linear_forward(a.probs, a.lnf, p.lm_head, N, C, V);
}

// Mean cross-entropy of Llama on inputs/targets (B,T).
float llama_loss(const LlamaParameters& p, ADJOINT_WRITE_ONCE LlamaActivations& a, const int* inputs,
                 const int* targets, const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B,
                 int T, int C, int NH, int NKV, int H, int L, int V, float eps) {
  llama_logits(p, a, inputs, rope_cos, rope_sin, lora, B, T, C, NH, NKV, H, L, V, eps);
  const int N = B * T;
  softmax_crossentropy_forward(a.losses, a.probs, a.probs, targets, N, V, V);
  return mean_loss(a.losses, targets, N);
}

}  // namespace adjoint

#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
namespace adjoint {

// The generated sweeps (adjc defines them below this file's code in its output).
inline float llama_loss_forward(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const int* targets,
                                const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B, int T,
                                int C, int NH, int NKV, int H, int L, int V, float eps);
inline void llama_loss_reverse(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const int* targets,
                               const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B, int T,
                               int C, int NH, int NKV, int H, int L, int V, float eps, float d_loss,
                               LlamaParameters* d_p, LlamaActivations* d_a, inactive d_rope_cos, inactive d_rope_sin,
                               inactive d_lora, inactive d_eps);

// LoRA's: the activations only (the request "a"), so the base's weights are inactive.
inline void llama_loss_reverse(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const int* targets,
                               const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B, int T,
                               int C, int NH, int NKV, int H, int L, int V, float eps, float d_loss, inactive d_p,
                               LlamaActivations* d_a, inactive d_rope_cos, inactive d_rope_sin, inactive d_lora,
                               inactive d_eps);

float llama_generated_forward_backward(const LlamaParameters& p, LlamaActivations& a, const int* inputs,
                                       const int* targets, const float* rope_cos, const float* rope_sin, int B, int T,
                                       int C, int NH, int NKV, int H, int L, int V, float eps, LlamaParameters& d_p,
                                       LlamaActivations& d_a, std::size_t* tape_bytes) {
  const float loss =
      llama_loss_forward(p, a, inputs, targets, rope_cos, rope_sin, nullptr, B, T, C, NH, NKV, H, L, V, eps);
  *tape_bytes = thread_tape_bytes();  // the tape is fullest between the sweeps
  llama_loss_reverse(p, a, inputs, targets, rope_cos, rope_sin, nullptr, B, T, C, NH, NKV, H, L, V, eps, 1.0f, &d_p,
                     &d_a, inactive{}, inactive{}, inactive{}, inactive{});
  return loss;
}

float llama_lora_generated_forward_backward(const LlamaParameters& p, LlamaActivations& a, const int* inputs,
                                            const int* targets, const float* rope_cos, const float* rope_sin,
                                            const LoraAdapters& lora, int B, int T, int C, int NH, int NKV, int H,
                                            int L, int V, float eps, LlamaActivations& d_a, std::size_t* tape_bytes) {
  const float loss =
      llama_loss_forward(p, a, inputs, targets, rope_cos, rope_sin, &lora, B, T, C, NH, NKV, H, L, V, eps);
  *tape_bytes = thread_tape_bytes();
  llama_loss_reverse(p, a, inputs, targets, rope_cos, rope_sin, &lora, B, T, C, NH, NKV, H, L, V, eps, 1.0f, inactive{},
                     &d_a, inactive{}, inactive{}, inactive{}, inactive{});
  return loss;
}

}  // namespace adjoint

// The request that makes adjc generate llama_loss's sweeps (at global scope: adjc declares the
// generated functions where the request stands). Returns the generated source, for people.
static const char* llama_loss_gradient_source() { return adjoint::gradient(adjoint::llama_loss, "p, a").source(); }
// LoRA's request: the weights inactive, so their pullbacks get no weight adjoint and run no dW GEMM.
static const char* llama_lora_gradient_source() { return adjoint::gradient(adjoint::llama_loss, "a").source(); }

const char* adjoint::llama_generated_backward_source() { return llama_loss_gradient_source(); }
const char* adjoint::llama_lora_generated_backward_source() { return llama_lora_gradient_source(); }
#endif
