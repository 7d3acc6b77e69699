// GPT-2 as modules over adjoint::Tensor: plain structs with public Tensor members and const
// forward functions, written for adjc to differentiate through (adjoint::gradient(gpt2_loss,
// "model") yields a model-shaped gradient). The ops' pullbacks are in tensor.hpp.
#pragma once
#include <memory>

#include "adjoint/gpt2.hpp"
#include "adjoint/tensor.hpp"

namespace adjoint::nn {

// x (..., C) -> (..., OC)
struct Linear {
  Tensor weight;  // (OC, C), the arrays engine's layout
  Tensor bias;    // (OC), or empty for none
  Tensor forward(const Tensor& x) const { return linear(x, weight, bias); }
};

// x (..., C) -> (..., OC): a projection plus the outputs of the LoRA adapters in its matrix, the
// arrays engine's parameter tensor `tensor` of layer `layer` (adjoint/lora.hpp). lora is the
// adapters' parameters (empty, and adapters null, for none).
struct AdaptedLinear {
  Tensor weight;                 // (OC, C), the arrays engine's layout
  Tensor bias;                   // (OC), or empty for none
  const LoraAdapters* adapters;  // null: none
  int tensor, layer;
  Tensor forward(const Tensor& x, const Tensor& lora) const {
    return adapted_linear(x, weight, bias, lora, adapters, tensor, layer);
  }
};

// x (..., C) -> (..., C)
struct LayerNorm {
  Tensor weight, bias;  // (C)
  Tensor forward(const Tensor& x) const { return layernorm(x, weight, bias); }
};

// idx (B, T) -> (B, T, C)
struct Embedding {
  Tensor weight;  // (V, C)
  Tensor forward(const int* idx, int B, int T) const { return embedding(weight, idx, B, T); }
};

// x (B, T, C) -> (B, T, C)
struct MLP {
  AdaptedLinear c_fc, c_proj;  // C -> 4C -> C
  Tensor forward(const Tensor& x, const Tensor& lora) const {
    return c_proj.forward(gelu(c_fc.forward(x, lora)), lora);
  }
};

// x (B, T, C) -> (B, T, C)
struct CausalSelfAttention {
  AdaptedLinear c_attn, c_proj;  // C -> 3C (q, k, v), C -> C
  int n_head;
  Tensor forward(const Tensor& x, const Tensor& lora) const {
    return c_proj.forward(causal_attention(c_attn.forward(x, lora), n_head), lora);
  }
};

// x (B, T, C) -> (B, T, C): pre-norm attention and MLP, each added to the residual stream.
struct Block {
  LayerNorm ln_1;
  CausalSelfAttention attn;
  LayerNorm ln_2;
  MLP mlp;
  Tensor forward(const Tensor& x, const Tensor& lora) const {
    const Tensor y = x + attn.forward(ln_1.forward(x), lora);
    return y + mlp.forward(ln_2.forward(y), lora);
  }
};

struct GPT2 {
  Embedding wte;  // (Vp, C): token embeddings, and the LM head (tied)
  Embedding wpe;  // (maxT, C): position embeddings
  Block* h;       // n_layer blocks
  int n_layer;
  LayerNorm ln_f;
  int vocab_size;  // V: logits past it are padding
};

// idx (B, T) -> logits (B, T, Vp), the projections adding their adapters' outputs (lora: AdaptedLinear).
inline Tensor gpt2_lora_logits(const GPT2& model, const Tensor& lora, const int* idx, int B, int T) {
  Tensor x = model.wte.forward(idx, B, T) + model.wpe.weight.slice(0, 0, T);
  for (int l = 0; l < model.n_layer; l++) x = model.h[l].forward(x, lora);
  return linear(model.ln_f.forward(x), model.wte.weight, Tensor{});
}
inline Tensor gpt2_logits(const GPT2& model, const int* idx, int B, int T) {
  return gpt2_lora_logits(model, Tensor{}, idx, B, T);
}

// The mean cross-entropy of the next tokens targets (B, T) with LoRA adapters: differentiated for
// "lora" alone (TensorGPT2 with adapters), the base's weights are inactive and get no gradient.
inline float gpt2_lora_loss(const GPT2& model, const Tensor& lora, const int* idx, const int* targets, int B, int T) {
  return cross_entropy(gpt2_lora_logits(model, lora, idx, B, T), targets, model.vocab_size);
}

// The same without adapters.
inline float gpt2_loss(const GPT2& model, const int* idx, const int* targets, int B, int T) {
  return gpt2_lora_loss(model, Tensor{}, idx, targets, B, T);
}

// gpt2_loss, and its gradient ADDED into the tensors of `grads`, by the backward adjc generates
// from gpt2_loss (src/llm/gpt2/tensor_gradient.cpp). Allocates in the current arena; throws
// std::invalid_argument when the build had no adjc (have_tensor_gradient()).
float gpt2_loss_gradient(const GPT2& model, GPT2& grads, const int* idx, const int* targets, int B, int T);
bool have_tensor_gradient();
// The C++ adjc generated for gpt2_loss's gradient, for people to read ("" without adjc), and for
// gpt2_lora_loss's in the adapters alone.
const char* tensor_gradient_source();
const char* gpt2_lora_tensor_gradient_source();

// A GPT2 whose tensors view an arrays-engine-layout arena (ParameterTensors: the arrays engine's parameters,
// or its gradients for a model-shaped gradient), so both engines share weights and files.
// Owns the Block array the model points at.
class GPT2Views {
 public:
  // adapters: the LoRA adapters its projections add (null: none).
  GPT2Views(const GPT2Config& config, const ParameterTensors& p, const LoraAdapters* adapters = nullptr);
  GPT2Views(const GPT2Views&) = delete;
  GPT2Views& operator=(const GPT2Views&) = delete;
  const GPT2& model() const { return model_; }
  GPT2& model() { return model_; }

 private:
  std::unique_ptr<Block[]> blocks_;
  GPT2 model_{};
};

// The tensor engine: an engine's parameters and gradients seen as modules, and the arena of a
// step's activations and adjoints. Only forward+backward differ from the arrays engine's; weights,
// gradients, the optimizer and files stay the arrays engine's. TensorGPT2 and TensorLlama (nn_llama.hpp).
class TensorEngine {
 public:
  virtual ~TensorEngine() = default;
  // The loss on inputs/targets (B, T), its gradient added into the arrays engine's gradients.
  virtual float forward_backward(const int* inputs, const int* targets, int B, int T) = 0;
  // Holds the last step's activations and adjoints (its capacity is the step's peak).
  const Arena& arena() const { return arena_; }
  // Bytes the last step's forward sweep left on the tape for the reverse sweep.
  std::size_t tape_bytes() const { return tape_bytes_; }

 protected:
  Arena arena_;
  std::size_t tape_bytes_ = 0;
};

// With LoRA adapters attached to the arrays model, its projections add them and the gradient is
// the adapters' alone (gpt2_lora_loss differentiated for "lora", into their gradient arena).
class TensorGPT2 : public TensorEngine {
 public:
  // Throws std::invalid_argument when the build had no adjc.
  explicit TensorGPT2(adjoint::GPT2& arrays_model);
  // gpt2_loss on inputs/targets (B, T), its gradient added into arrays_model.grads() (or the
  // adapters'); returns the loss.
  float forward_backward(const int* inputs, const int* targets, int B, int T) override;

 private:
  const LoraAdapters* adapters_;  // the arrays model's (null: none)
  GPT2Views model_;
  std::unique_ptr<GPT2Views> grads_;  // null with adapters: a frozen base has no gradients
  Tensor lora_, d_lora_;              // the adapters' parameters and gradients (empty without)
};

}  // namespace adjoint::nn
