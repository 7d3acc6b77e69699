// Llama 3 as modules over adjoint::Tensor, beside GPT-2's (nn.hpp) and in the same style: plain
// structs with public Tensor members and const forward functions for adjc to differentiate
// through (adjoint::gradient(llama_loss, "model") yields a model-shaped gradient).
#pragma once
#include <memory>
#include <string>

#include "adjoint/llama.hpp"
#include "adjoint/nn.hpp"

namespace adjoint::nn {

// x (..., C) -> (..., C)
struct RMSNorm {
  Tensor weight;  // (C)
  float eps;
  Tensor forward(const Tensor& x) const { return rmsnorm(x, weight, eps); }
};

// Rotary position embedding: cos and sin of position · frequency (positions, hs/2), the
// frequencies the arrays engine computes (rope_theta, Llama 3.1's scaling). A constant of the model,
// passed beside it (as Meta's reference passes freqs_cis), so it takes no gradient.
struct Rotary {
  Tensor cos, sin;
  // x (B, T, heads, hs): the first rotated_heads heads rotated by their position, the rest copied.
  Tensor forward(const Tensor& x, int rotated_heads) const {
    const int T = x.size(1);
    return rotary(x, cos.slice(0, 0, T), sin.slice(0, 0, T), rotated_heads);
  }
};

// x (B, T, C) -> (B, T, C): NH query heads over NKV key/value heads, q and k rotated.
struct GroupedQueryAttention {
  AdaptedLinear c_attn, c_proj;  // C -> (NH + 2·NKV)·hs (q, k, v), C -> C
  int n_head, n_kv_head;
  Tensor forward(const Tensor& x, const Rotary& rope, const Tensor& lora) const {
    const Tensor qkv = c_attn.forward(x, lora).view(x.size(0), x.size(1), n_head + 2 * n_kv_head, -1);
    return c_proj.forward(grouped_attention(rope.forward(qkv, n_head + n_kv_head), n_head, n_kv_head), lora);
  }
};

// x (B, T, C) -> (B, T, C): w2(silu(w1 x) · w3 x)
struct SwiGLU {
  AdaptedLinear c_fc, c_fc2, c_proj;  // up (Meta's w3), gate (w1): C -> H; down (w2): H -> C
  Tensor forward(const Tensor& x, const Tensor& lora) const {
    return c_proj.forward(swiglu(c_fc2.forward(x, lora), c_fc.forward(x, lora)), lora);
  }
};

// x (B, T, C) -> (B, T, C): pre-norm attention and MLP, each added to the residual stream.
struct LlamaBlock {
  RMSNorm ln_1;
  GroupedQueryAttention attn;
  RMSNorm ln_2;
  SwiGLU mlp;
  Tensor forward(const Tensor& x, const Rotary& rope, const Tensor& lora) const {
    const Tensor y = x + attn.forward(ln_1.forward(x), rope, lora);
    return y + mlp.forward(ln_2.forward(y), lora);
  }
};

struct Llama {
  Embedding wte;  // (V, C)
  LlamaBlock* h;  // n_layer blocks
  int n_layer;
  RMSNorm ln_f;
  Linear lm_head;  // (V, C), no bias; wte's weight when the head is tied
};

// idx (B, T) -> logits (B, T, V), the projections adding their adapters' outputs (lora: AdaptedLinear).
inline Tensor llama_logits(const Llama& model, const Tensor& lora, const Rotary& rope, const int* idx, int B, int T) {
  Tensor x = model.wte.forward(idx, B, T);
  for (int l = 0; l < model.n_layer; l++) x = model.h[l].forward(x, rope, lora);
  return model.lm_head.forward(model.ln_f.forward(x));
}

// The mean cross-entropy of the next tokens targets (B, T) with LoRA adapters: differentiated for
// "lora" alone (LlamaLora), the base's weights are inactive and get no gradient.
inline float llama_lora_loss(const Llama& model, const Tensor& lora, const Rotary& rope, const int* idx,
                             const int* targets, int B, int T) {
  return cross_entropy(llama_logits(model, lora, rope, idx, B, T), targets, model.lm_head.weight.size(0));
}

// The same without adapters.
inline float llama_loss(const Llama& model, const Rotary& rope, const int* idx, const int* targets, int B, int T) {
  return llama_lora_loss(model, Tensor{}, rope, idx, targets, B, T);
}

// llama_loss, and its gradient ADDED into the tensors of `grads` (a model-shaped gradient, e.g.
// LlamaViews over the arrays engine's gradient arena), by the backward adjc generates from llama_loss
// (src/llm/llama/tensor_gradient.cpp). Allocates in the current arena; throws std::invalid_argument
// when the build had no adjc (have_tensor_gradient()).
float llama_loss_gradient(const Llama& model, Llama& grads, const Rotary& rope, const int* idx, const int* targets,
                          int B, int T);
// The C++ adjc generated for llama_loss's gradient and the kernels' gradients its ops call.
std::string llama_tensor_gradient_source();
// The C++ adjc generated for llama_lora_loss's gradient in the adapters alone ("" without adjc).
std::string llama_lora_tensor_gradient_source();

// A Llama whose tensors view an arrays-engine-layout arena (LlamaParameters: the arrays engine's parameters,
// or its gradients for a model-shaped gradient), so both engines share weights and files.
class LlamaViews {
 public:
  // adapters: the LoRA adapters its projections add (null: none).
  LlamaViews(const LlamaConfig& config, const LlamaParameters& p, const LoraAdapters* adapters = nullptr);
  LlamaViews(const LlamaViews&) = delete;
  LlamaViews& operator=(const LlamaViews&) = delete;
  const Llama& model() const { return model_; }
  Llama& model() { return model_; }

 private:
  std::unique_ptr<LlamaBlock[]> blocks_;
  Llama model_{};
};

// RoPE's table for `positions` positions (adjoint::rope_table: the arrays engine's frequencies), and a
// Rotary over it.
class RotaryTable {
 public:
  RotaryTable(const LlamaConfig& config, int positions);
  const Rotary& rotary() const { return rotary_; }
  int positions() const { return rotary_.cos.size(0); }

 private:
  FloatArena table_;
  Rotary rotary_;
};

// The tensor engine for Llama: the arrays engine's parameters and gradients seen as Llama modules.
// With LoRA adapters attached to the arrays model, its projections add them and the gradient is
// the adapters' alone (llama_lora_loss differentiated for "lora", into their gradient arena).
class TensorLlama : public TensorEngine {
 public:
  // Throws std::invalid_argument when the build had no adjc.
  explicit TensorLlama(adjoint::Llama& arrays_model);
  float forward_backward(const int* inputs, const int* targets, int B, int T) override;

 private:
  const LlamaConfig config_;
  const LoraAdapters* adapters_;  // the arrays model's (null: none)
  LlamaViews model_;
  std::unique_ptr<LlamaViews> grads_;  // null with adapters: a frozen base has no gradients
  Tensor lora_, d_lora_;               // the adapters' parameters and gradients (empty without)
  std::unique_ptr<RotaryTable> rope_;  // for the longest T so far
};

}  // namespace adjoint::nn
