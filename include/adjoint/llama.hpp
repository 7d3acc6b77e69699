// Llama 3 (the 3, 3.1 and 3.2 architecture) in the arrays engine: configuration, parameter layout
// (llm.c's train_llama3.py file order), arenas, and the hand-written forward and backward passes
// over the kernels. It shares GPT-2's FloatArena and Backward choice.
#pragma once
#include <array>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "adjoint/gpt2.hpp"

namespace adjoint {

struct LlamaConfig {
  int max_seq_len = 0;             // maxT: positions RoPE and the batch shapes allow
  int vocab_size = 0;              // V (not padded, as llm.c's Llama 3 files)
  int num_layers = 0;              // L
  int num_heads = 0;               // NH query heads
  int num_kv_heads = 0;            // NKV key/value heads, NH % NKV == 0
  int channels = 0;                // C, NH * hs
  int multiple_of = 256;           // the MLP's hidden size is rounded up to a multiple of this
  float ffn_dim_multiplier = 1.0f; // Meta's ffn_dim_multiplier (1: none)
  float norm_eps = 1e-5f;          // RMSNorm's epsilon
  float rope_theta = 500000.0f;
  // Llama 3.1's RoPE frequency scaling (Meta's apply_scaling).
  bool use_scaled_rope = false;
  float rope_scale_factor = 8.0f;
  float rope_low_freq_factor = 1.0f;
  float rope_high_freq_factor = 4.0f;
  int rope_original_context = 8192;
  bool tied_head = false;          // LM head = wte (Llama 3.2 1B/3B), else its own (V,C) matrix
  int version_major = 3, version_minor = 1;  // as llm.c's header records them
};

// The SwiGLU hidden size as Meta computes it: int(2·4C/3), times ffn_dim_multiplier (truncated),
// rounded up to a multiple of multiple_of.
int llama_hidden_size(const LlamaConfig& config);
// The shape in one line, as Llama::describe says it.
std::string describe(const LlamaConfig& config);
// "llama-dN": N layers, N query heads of 64 channels, N/2 key/value heads (N when N is odd),
// Llama 3's vocabulary, maxT 1024, tied head, no RoPE scaling. "llama3-bench": GPT-2 124M's body
// (C=768, L=12, NH=12) with NKV=4, hidden 2048, Llama 3's vocabulary, tied head. "llama3.2-1B" and
// "llama3.1-8B": Meta's published shapes. Throws std::invalid_argument on other names.
LlamaConfig llama_config_from_name(const std::string& name);
// Whether name is one llama_config_from_name knows (the "llama" prefix).
bool is_llama_name(const std::string& name);
// Throws std::invalid_argument naming the first impossible field.
void validate_config(const LlamaConfig& config);
// RoPE's frequencies (hs/2), with Llama 3.1's scaling when the config asks for it.
std::vector<double> rope_frequencies(const LlamaConfig& config);
// cos, then sin, of position · frequency for positions 0..positions-1: (2, positions, hs/2),
// computed in double.
FloatArena rope_table(const LlamaConfig& config, int positions);

constexpr int kNumLlamaParameterTensors = 10;

// Views into the parameter (or gradient) arena, in llm.c's Llama 3 file order. QKV =
// (NH + 2·NKV)·hs, H the SwiGLU hidden size.
struct LlamaParameters {
  float* wte;       // (V, C)
  float* ln1w;      // (L, C)
  float* qkvw;      // (L, QKV, C): query, key, value rows
  float* attprojw;  // (L, C, C)
  float* ln2w;      // (L, C)
  float* fcw;       // (L, H, C): the "up" projection (Meta's w3, llm.c's c_fc)
  float* fc2w;      // (L, H, C): the gate, through silu (Meta's w1, llm.c's c_fc2)
  float* fcprojw;   // (L, C, H): Meta's w2
  float* lnfw;      // (C)
  float* lm_head;   // (V, C); with a tied head it is wte and takes no memory of its own
};

std::array<std::size_t, kNumLlamaParameterTensors> parameter_sizes(const LlamaConfig& config);
// The tensors' indices in kLlamaParameterNames (how LoRA adapters name the matrix they are in).
enum LlamaTensor : int {
  kLlamaWte,
  kLlamaLn1w,
  kLlamaQkvw,
  kLlamaAttprojw,
  kLlamaLn2w,
  kLlamaFcw,
  kLlamaFc2w,
  kLlamaFcprojw,
  kLlamaLnfw,
  kLlamaLmHead
};
extern const std::array<const char*, kNumLlamaParameterTensors> kLlamaParameterNames;
// The 2-D weights (embedding, projections, head) decay; RMSNorm gains do not.
bool llama_parameter_is_decayed(int tensor_index);
LlamaParameters parameter_views(float* memory, const LlamaConfig& config);

// One layer's activations, (B,T,C) unless noted.
struct LlamaLayerActivations {
  float* ln1;
  float* ln1_rstd;   // (B,T)
  float* qkv;        // (B,T,QKV)
  float* qkvr;       // (B,T,QKV): q and k rotated by RoPE, v copied
  float* atty;
  float* att;        // (B,NH,T,T)
  float* att_sum;    // (B,NH,T): each attention row's softmax denominator
  float* residual2;
  float* ln2;
  float* ln2_rstd;   // (B,T)
  float* fc;         // (B,T,H) up
  float* fc2;        // (B,T,H) gate
  float* swiglu;     // (B,T,H)
};

struct LlamaActivations {
  float* residual;   // (L+1,B,T,C)
  LlamaLayerActivations* layers;  // (L)
  float* lnf;        // (B,T,C)
  float* lnf_rstd;   // (B,T)
  float* probs;      // (B,T,V): logits, then probabilities, then their gradient
  float* losses;     // (B,T)
  float* proj;       // (B,T,C)
  // Backward scratch, reused by every layer; dln … dfc2 is contiguous (one memset per layer).
  float* dresidual;  // (B,T,C)
  float* dln;        // (B,T,C)
  float* datty;      // (B,T,C)
  float* dqkvr;      // (B,T,QKV)
  float* dqkv;       // (B,T,QKV)
  float* dswiglu;    // (B,T,H)
  float* dfc;        // (B,T,H)
  float* dfc2;       // (B,T,H)
  float* datt;       // (B,NH,T)
  float* dlosses;    // (B,T)
};

// The forward pass (src/llm/llama/forward.cpp): logits (B,T,V) into a.probs, or the mean
// cross-entropy against targets (B,T). rope_cos, rope_sin (T, hs/2): RoPE's cos and sin of
// position · frequency; lora: LoRA adapters whose outputs the projections add (null: none).
void llama_logits(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const float* rope_cos,
                  const float* rope_sin, const LoraAdapters* lora, int B, int T, int C, int NH, int NKV, int H, int L,
                  int V, float eps);
float llama_loss(const LlamaParameters& p, LlamaActivations& a, const int* inputs, const int* targets,
                 const float* rope_cos, const float* rope_sin, const LoraAdapters* lora, int B, int T, int C, int NH,
                 int NKV, int H, int L, int V, float eps);
// The backward adjc generates from llama_loss (src/llm/llama/forward.cpp; absent from builds without
// adjc): the loss, its gradient added into d_p, the bytes taped into *tape_bytes.
float llama_generated_forward_backward(const LlamaParameters& p, LlamaActivations& a, const int* inputs,
                                       const int* targets, const float* rope_cos, const float* rope_sin, int B, int T,
                                       int C, int NH, int NKV, int H, int L, int V, float eps, LlamaParameters& d_p,
                                       LlamaActivations& d_a, std::size_t* tape_bytes);
// The same with LoRA adapters (their gradients added into lora's arena): adjc's reverse sweep of
// llama_loss for the activations only, so the base's weights are inactive and get no gradient.
float llama_lora_generated_forward_backward(const LlamaParameters& p, LlamaActivations& a, const int* inputs,
                                            const int* targets, const float* rope_cos, const float* rope_sin,
                                            const LoraAdapters& lora, int B, int T, int C, int NH, int NKV, int H,
                                            int L, int V, float eps, LlamaActivations& d_a, std::size_t* tape_bytes);
// The C++ adjc generated for the Llama backward, for people to read ("" without adjc); and for
// LoRA's (the activations only: no weight's adjoint appears in it).
const char* llama_generated_backward_source();
const char* llama_lora_generated_backward_source();

// Floats a backward pass needs for (B, T) beside the activations (as gpt2_backward_floats).
std::size_t llama_backward_floats(const LlamaConfig& c, Backward backward, int B, int T);

// Llama 3 over the arrays engine's arenas (adjoint/arena_model.hpp), as GPT2.
class Llama : public ArenaModel {
 public:
  // With frozen_bf16, a frozen base whose matrices are bf16 (adjoint/bf16.hpp): only the RMSNorm
  // gains are in the fp32 arena (zero; the caller fills them and hands the matrices' stand-ins to
  // keep_bf16_parameters), and there are no gradients (it trains only adapters).
  explicit Llama(const LlamaConfig& config, bool frozen_bf16 = false);

  const LlamaConfig& config() const { return config_; }
  const LlamaParameters& params() const { return params_; }
  const LlamaParameters& grads() const { return grads_; }

  // N(0, 0.02) weights, the residual projections (attprojw, fcprojw) scaled by 1/sqrt(2L), unit
  // RMSNorm gains. Deterministic for a seed.
  void init_random(std::uint64_t seed);

  std::size_t activation_floats(int B, int T) const override;
  using ArenaModel::activation_floats;
  // The last forward's (B,T,V) logits (a forward without targets).
  const float* logits() const { return acts_.probs; }

  // The rest of Model (src/llm/llama/model.cpp).
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
  std::size_t lay_out_adjoints(float* memory, int B, int T) override;
  std::size_t lay_out_scratch(float* memory, int B, int T) override;
  void activations_reserved(int B, int T) override;
  float run_forward(const int* inputs, const int* targets, int B, int T) override;
  void run_backward(const int* inputs, const int* targets, int B, int T) override;
  float run_generated(const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) override;
  int tokens() const override { return config_.vocab_size; }
  const float* rope_cos() const { return rope_table_.data(); }
  const float* rope_sin() const { return rope_table_.data() + rope_table_.size() / 2; }

  LlamaConfig config_;
  int hidden_ = 0;
  // RoPE's cos, then sin (reserved T, hs/2), outside the activation arena, whose layout changes
  // with (B, T): the same rows serve every shorter T.
  FloatArena rope_table_;
  LlamaParameters params_{}, grads_{};
  LlamaActivations acts_{};
  std::vector<LlamaLayerActivations> layer_acts_;
  // The generated backward's activation adjoints (see adjoint_views).
  LlamaActivations dacts_{};
  std::vector<LlamaLayerActivations> layer_dacts_;
};

// Text generation with a KV cache for Llama: per layer and position the NKV rotated key heads and
// NKV value heads (not NH), for up to `positions` positions (at most maxT), so a long-context
// model's cache is sized by the generation, not by its 131072 positions.
class LlamaGenerator : public TokenGenerator {
 public:
  LlamaGenerator(const Llama& model, int positions);
  // Runs the token at the next position and returns the (V) logits that predict the one after
  // it. Throws std::out_of_range once the positions are used.
  const float* feed(int token) override;
  int position() const override { return position_; }

 private:
  const Llama& model_;
  int positions_;
  FloatArena kv_cache_;  // (L, positions, 2·NKV·hs)
  FloatArena rope_;      // cos, then sin (positions, hs/2)
  FloatArena scratch_;   // one position's activations
  int position_ = 0;
};

}  // namespace adjoint
