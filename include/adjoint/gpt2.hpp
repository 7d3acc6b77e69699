// GPT-2 in the arrays engine: configuration, parameter layout (llm.c's order), arenas, and the
// hand-written forward and backward passes over the kernels.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adjoint/arena_model.hpp"

namespace adjoint {

struct GPT2Config {
  int max_seq_len = 0;        // maxT
  int vocab_size = 0;         // V
  int padded_vocab_size = 0;  // Vp: V rounded up to a multiple of 128, for aligned matmuls
  int num_layers = 0;         // L
  int num_heads = 0;          // NH
  int channels = 0;           // C
};

// V rounded up to a multiple of 128.
int padded_vocab(int vocab_size);
// A config of this shape, with Vp = padded_vocab(V).
GPT2Config gpt2_config(int max_seq_len, int vocab_size, int num_layers, int num_heads, int channels);
// "gpt2-124M" (12 layers, 768 channels), or "dN": N layers, N heads of 64 channels (d12 is
// gpt2-124M's shape); vocabulary 50257, maxT 1024. Throws on an unknown name.
GPT2Config gpt2_config_from_name(const std::string& name);
// The shape in one line, as GPT2::describe says it: "L=4 NH=4 C=256 V=50257 maxT=1024".
std::string describe(const GPT2Config& config);
// Throws std::invalid_argument naming the first impossible field (C not divisible by NH…).
void validate_config(const GPT2Config& config);
constexpr int kNumParameterTensors = 16;

// Views into the parameter (or gradient) arena, in llm.c's file order.
struct ParameterTensors {
  float* wte;       // (Vp, C), also the tied LM head
  float* wpe;       // (maxT, C)
  float* ln1w;      // (L, C)
  float* ln1b;      // (L, C)
  float* qkvw;      // (L, 3C, C)
  float* qkvb;      // (L, 3C)
  float* attprojw;  // (L, C, C)
  float* attprojb;  // (L, C)
  float* ln2w;      // (L, C)
  float* ln2b;      // (L, C)
  float* fcw;       // (L, 4C, C)
  float* fcb;       // (L, 4C)
  float* fcprojw;   // (L, C, 4C)
  float* fcprojb;   // (L, C)
  float* lnfw;      // (C)
  float* lnfb;      // (C)
};

std::array<std::size_t, kNumParameterTensors> parameter_sizes(const GPT2Config& config);
extern const std::array<const char*, kNumParameterTensors> kParameterNames;
// The projections' indices in kParameterNames (how LoRA adapters name the matrix they are in).
enum GPT2Tensor : int { kGpt2Wte = 0, kGpt2Qkvw = 4, kGpt2Attprojw = 6, kGpt2Fcw = 10, kGpt2Fcprojw = 12 };
// Weight decay in GPT-2 training touches the 2-D weights only, not biases or layernorm gains.
bool parameter_is_decayed(int tensor_index);
ParameterTensors parameter_views(float* memory, const GPT2Config& config);

// Everything the backward pass reads from the forward, plus the backward's scratch, for a
// fixed (B, T). Per-layer tensors are (L, ...) stacks.
// One layer's activations, (B,T,C) unless noted.
struct LayerActivations {
  float* ln1;
  float* ln1_mean;   // (B,T)
  float* ln1_rstd;   // (B,T)
  float* qkv;        // (B,T,3C)
  float* atty;
  float* att;        // (B,NH,T,T)
  float* att_sum;    // (B,NH,T): each attention row's softmax denominator
  float* residual2;
  float* ln2;
  float* ln2_mean;   // (B,T)
  float* ln2_rstd;   // (B,T)
  float* fch;        // (B,T,4C)
  float* fch_gelu;   // (B,T,4C)
};

struct ActivationTensors {
  float* residual;   // (L+1,B,T,C): the residual stream, [0] the embedding, [l+1] block l's output
  LayerActivations* layers;  // (L): block l's activations (the array is the model's)
  float* lnf;        // (B,T,C)
  float* lnf_mean;   // (B,T)
  float* lnf_rstd;   // (B,T)
  float* probs;      // (B,T,Vp): logits, then probabilities, then their gradient
  float* losses;     // (B,T)
  float* proj;       // (B,T,C): attention or MLP projection before its residual add
  // Backward scratch, reused by every layer. The per-layer block (dln … dfch) is contiguous
  // so one memset clears it.
  float* dresidual;  // (B,T,C)
  float* dln;        // (B,T,C)
  float* datty;      // (B,T,C)
  float* dqkv;       // (B,T,3C)
  float* dfch_gelu;  // (B,T,4C)
  float* dfch;       // (B,T,4C)
  float* datt;       // (B,NH,T)
  float* dlosses;    // (B,T)
};

// The forward pass (src/llm/gpt2/forward.cpp): logits (B,T,Vp) into a.probs, or the mean
// cross-entropy against targets (B,T). `a` is laid out for (B, T) by the model.
// lora: LoRA adapters whose outputs the projections add (null: none).
void gpt2_logits(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const LoraAdapters* lora, int B,
                 int T, int C, int NH, int L, int Vp);
float gpt2_loss(const ParameterTensors& p, ActivationTensors& a, const int* inputs, const int* targets,
                const LoraAdapters* lora, int B, int T, int C, int NH, int L, int V, int Vp);

// The backward adjc generates from gpt2_loss (src/llm/gpt2/forward.cpp; absent from builds without
// adjc): gpt2_generated_forward runs the forward sweep (the loss; the bytes it taped into
// *tape_bytes), gpt2_generated_backward the reverse sweep, adding into d_p.
float gpt2_generated_forward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes);
void gpt2_generated_backward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                             const int* inputs, const int* targets, int B, int T, ParameterTensors& d_p,
                             ActivationTensors& d_a);
// The same with LoRA adapters (their gradients added into lora's arena): adjc's reverse sweep of
// gpt2_loss for the activations only, so the base's weights are inactive and get no gradient.
float gpt2_lora_generated_forward_backward(const GPT2Config& c, const ParameterTensors& p, ActivationTensors& a,
                                           const int* inputs, const int* targets, const LoraAdapters& lora, int B,
                                           int T, ActivationTensors& d_a, std::size_t* tape_bytes);
// The C++ that adjc generated for the GPT-2 backward, for people to read ("" without adjc); and for
// LoRA's (the activations only: no weight's adjoint appears in it).
const char* generated_backward_source();
const char* gpt2_lora_generated_backward_source();
// Floats a backward pass needs for (B, T) beside the activations: the hand-written one's scratch,
// or the generated one's activation adjoints (the model allocates the pass's when it first runs).
std::size_t gpt2_backward_floats(const GPT2Config& c, Backward backward, int B, int T);


// GPT-2 over the arrays engine's arenas (adjoint/arena_model.hpp): manual backward GPT2's own,
// generated backward adjc's.
class GPT2 : public ArenaModel {
 public:
  // With frozen_bf16, a frozen base whose matrices are bf16 (adjoint/bf16.hpp): the four
  // projection weights per layer are the stand-ins' to provide (the caller hands them to
  // keep_bf16_parameters); the rest (the embeddings, biases, layernorm parameters) is in the fp32
  // arena, zero for the caller to fill; there are no gradients (it trains only adapters).
  explicit GPT2(const GPT2Config& config, bool frozen_bf16 = false);

  const GPT2Config& config() const { return config_; }
  const ParameterTensors& params() const { return params_; }
  const ParameterTensors& grads() const { return grads_; }

  // GPT-2's initialisation: N(0, 0.02) weights, residual projections scaled by 1/sqrt(2L),
  // zero biases, unit layernorm gains. Deterministic for a seed.
  void init_random(std::uint64_t seed);

  std::size_t activation_floats(int B, int T) const override;
  using ArenaModel::activation_floats;
  // The last forward's (B,T,Vp) logits (a forward without targets).
  const float* logits() const { return acts_.probs; }

  // The rest of Model (src/llm/gpt2/model.cpp).
  std::vector<ParameterTensor> parameter_tensors() const override;
  int vocab_size() const override { return config_.vocab_size; }
  int max_seq_len() const override { return config_.max_seq_len; }
  int start_token() const override;
  std::string describe() const override;
  double step_flops(int B, int T) const override;
  void save_file(const std::string& path, const float* values) const override;
  void save_hf_folder(const std::string& dir, const float* values) const override;  // src/llm/*/hf.cpp
  void save_training_state(const std::string& path, const AdamW& optimizer,
                           const TrainingProgress& progress) const override;
  TrainingProgress load_training_state(const std::string& path, AdamW& optimizer) override;
  std::unique_ptr<TokenGenerator> generator(int positions) const override;

 private:
  std::size_t lay_out_activations(float* memory, int B, int T) override;
  std::size_t lay_out_scratch(float* memory, int B, int T) override;
  std::size_t lay_out_adjoints(float* memory, int B, int T) override;
  float run_forward(const int* inputs, const int* targets, int B, int T) override;
  void run_backward(const int* inputs, const int* targets, int B, int T) override;
  float run_generated(const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) override;
  int tokens() const override { return config_.vocab_size; }

  GPT2Config config_;
  ParameterTensors params_{}, grads_{};
  ActivationTensors acts_{};
  std::vector<LayerActivations> layer_acts_;
  // Adjoints of the activations for the generated backward (zero between steps: its pullbacks
  // clear what they consume); see adjoint_views.
  ActivationTensors dacts_{};
  std::vector<LayerActivations> layer_dacts_;
};

}  // namespace adjoint
