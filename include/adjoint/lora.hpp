// LoRA (Hu et al., 2021) over a frozen base, unmerged: a wrapped projection W (out, in) computes
// y = x·Wᵀ + s·(x·Aᵀ)·Bᵀ with A (r, in), B (out, r) and s = alpha / r. W is only read (it is
// never copied or changed); A and B are fp32 and are all that trains. See docs/finetuning.md.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adjoint/arena_model.hpp"
#include "adjoint/checkpoint.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/model.hpp"

namespace adjoint {

class LoraAdapters;

struct LoraConfig {
  int rank = 0;                      // r
  float alpha = 0;                   // the adapters' output is scaled by alpha / r
  std::vector<std::string> targets;  // projection names (kLoraTargets), in any order
};

// The projections an adapter can wrap: Llama's, named as PEFT's q_proj … down_proj: q, k, v (rows
// of the fused qkvw), o (attprojw), gate (fc2w), up (fcw), down (fcprojw); then GPT-2's, as llm.c
// names its matrices: qkv (c_attn), attproj, fc, fcproj. Files number the targets by this order.
inline constexpr std::array<const char*, 11> kLoraTargets = {"q",    "k",   "v",       "o",  "gate",  "up",
                                                             "down", "qkv", "attproj", "fc", "fcproj"};
inline constexpr int kFirstGpt2LoraTarget = 7;

// "q,k,v" -> {"q", "k", "v"}; throws std::invalid_argument on an empty list, an empty, unknown
// or repeated name (a name of the other model's is refused when the sites are made).
std::vector<std::string> parse_lora_targets(const std::string& list);
// Throws std::invalid_argument naming the first bad setting: rank outside [1, 65536], alpha not a
// finite number above 0, targets parse_lora_targets would reject.
void validate_lora_config(const LoraConfig& config);
inline float lora_scale(const LoraConfig& config) { return config.alpha / float(config.rank); }

// out (N, out_features; row stride ld_out) += xa · Bᵀ, where xa (N, r) = scale · x (N, in) · Aᵀ is
// kept for the backward.
template <typename F>
void lora_forward(F* out, int ld_out, F* xa, const F* x, const F* A, const F* B, F scale, int N, int in,
                  int out_features, int r);
// The gradients of lora_forward for dout (N, out_features; row stride ld_out), added into dA
// (r, in), dB (out, r) and dx (N, in). dxa (N, r) is scratch.
template <typename F>
void lora_backward(F* dx, F* dA, F* dB, F* dxa, const F* dout, int ld_out, const F* x, const F* xa, const F* A,
                   const F* B, F scale, int N, int in, int out_features, int r);
// W (out_features, in) += scale · B · A: the adapted projection as one matrix.
template <typename F>
void lora_merge(F* W, const F* A, const F* B, F scale, int in, int out_features, int r);

// The backward of a projection out (N, OC) = inp (N, C) · weight (OC, C)ᵀ (+ bias), plus the adapters
// in the base's tensor `tensor` of layer `layer` when adapters is not null: dinp += dout · weight;
// dweight and dbias (each may be null; a frozen base has neither, and then no weight-gradient GEMM
// runs) += their gradients; the adapters' gradients into their arena.
void adapted_projection_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                 const float* weight, const LoraAdapters* adapters, int tensor, int layer, int N, int C,
                                 int OC);

// Where one adapter sits in the base: rows [row_offset, row_offset + out) of a per-layer matrix
// (rows, in), layer l's at offset + l · layer_stride in the parameter arena.
struct LoraSite {
  const char* target;        // "q" …
  int tensor;                // the matrix's index in the model's parameter_tensors()
  std::size_t offset;        // floats from the arena's start to layer 0's matrix
  std::size_t layer_stride;  // floats from one layer's matrix to the next
  int rows, row_offset;      // the matrix's rows and the first adapted one
  int in, out;               // the adapted projection's shape (out, in)
};
// The sites of a Llama or GPT-2 model for the config's targets (in their order); throw
// std::invalid_argument for a target the model does not have or a rank above min(in, out) of one.
std::vector<LoraSite> llama_lora_sites(const LlamaConfig& model, const LoraConfig& lora);
std::vector<LoraSite> gpt2_lora_sites(const GPT2Config& model, const LoraConfig& lora);

// The adapters of one model in one arena: per site (in the targets' order) the L layers' A, then
// the L layers' B; and a gradient arena of the same layout.
class LoraAdapters {
 public:
  // Validates the config; A as PEFT initialises it (kaiming_uniform_ with a = sqrt(5), that is
  // U(-1/sqrt(in), 1/sqrt(in))) from seed, B zero, so the adapted model starts as the base.
  LoraAdapters(std::vector<LoraSite> sites, int layers, const LoraConfig& config, std::uint64_t seed);

  const LoraConfig& config() const { return config_; }
  const std::vector<LoraSite>& sites() const { return sites_; }
  int layers() const { return layers_; }
  std::size_t num_parameters() const { return params_.size(); }
  float* params_memory() const { return params_.data(); }
  float* grads_memory() const { return grads_.data(); }
  // "lora_A.q", "lora_B.q", … in arena order, per layer, all decayed (as PEFT's optimizers do).
  std::vector<ParameterTensor> parameter_tensors() const;
  // Site s's A (r, in) and B (out, r) of layer l in values (params or grads memory).
  float* A(float* values, std::size_t s, int layer) const;
  float* B(float* values, std::size_t s, int layer) const;

  // For the base's parameter tensor `tensor` of layer l with input x (N, in): out (N, rows) +=
  // every adapter in that matrix's output (nothing when none is).
  void add_output(int tensor, int layer, float* out, const float* x, int N) const;
  // Its backward for dout (N, rows): the adapters' gradients added into grads_memory() and their
  // input gradient into dx (N, in).
  void backward(int tensor, int layer, float* dx, const float* dout, const float* x, int N) const;
  // params (the base's arena) += scale · B · A at every site: the merged model.
  void merge_into(float* params) const;

 private:
  LoraConfig config_;
  std::vector<LoraSite> sites_;
  int layers_;
  std::vector<std::size_t> offsets_;  // site s's A block starts at offsets_[s]; the total last
  FloatArena params_, grads_;
  mutable std::vector<float> scratch_;  // xa and dxa (N, r) each: not thread-safe
};

// A base model with adapters attached, as the Model that `train --lora-rank` trains: its
// parameters, gradients and parameter tensors are the adapters'; forward, backward and
// generation are the base's with the adapters' outputs added. Files: save_file writes the
// adapters' file, the training state the adapters, their AdamW moments and the progress.
class LoraModel : public Model {
 public:
  // Throws std::invalid_argument for a bad config (validate_lora_config, the model's sites).
  LoraModel(std::unique_ptr<Model> base, const LoraConfig& config, std::uint64_t seed);
  ~LoraModel() override;

  ArenaModel& base() const { return *base_; }
  const LoraAdapters& adapters() const { return *adapters_; }

  std::size_t num_parameters() const override { return adapters_->num_parameters(); }
  float* params_memory() const override { return adapters_->params_memory(); }
  float* grads_memory() const override { return adapters_->grads_memory(); }
  std::vector<ParameterTensor> parameter_tensors() const override { return adapters_->parameter_tensors(); }
  int vocab_size() const override { return base_->vocab_size(); }
  int max_seq_len() const override { return base_->max_seq_len(); }
  int start_token() const override { return base_->start_token(); }
  std::string describe() const override;
  // A LoRA step's FLOPs: its parts' (flops_of_parts), no weight gradient.
  double step_flops(int B, int T) const override;
  struct StepFlops {
    double frozen_forward = 0;  // the base's products and attention
    double input_backward = 0;  // dX = dY·W through every product, attention's backward (twice its forward)
    double adapters = 0;        // 6·N·r·(in + out) a site and layer: forward, dA, dB and dx
  };
  StepFlops flops_of_parts(int B, int T) const;
  // Bytes of the base's parameters at the width each is kept in (2 for a bf16 matrix, 4 else); with
  // read_by_forward, only those a forward reads whole (an untied token embedding, of which it reads
  // B·T rows, left out).
  double frozen_parameter_bytes(bool read_by_forward) const;
  void reserve_activations(int B, int T) override { base_->reserve_activations(B, T); }
  std::size_t activation_floats() const override { return base_->activation_floats(); }
  std::size_t activation_floats(int B, int T) const override {
    return static_cast<const Model&>(*base_).activation_floats(B, T);
  }
  float forward(const int* inputs, const int* targets, int B, int T) override;
  float forward_backward(const int* inputs, const int* targets, int B, int T) override;
  void use_backward(Backward backward) override { base_->use_backward(backward); }
  Backward backward_pass() const override { return base_->backward_pass(); }
  bool has_backward(Backward backward) const override { return base_->has_backward(backward); }
  void on_layer_backward(std::function<void(int layer)> hook) override;
  std::size_t tape_bytes() const override { return base_->tape_bytes(); }
  std::size_t activation_adjoint_floats() const override { return base_->activation_adjoint_floats(); }
  std::size_t backward_scratch_floats() const override { return base_->backward_scratch_floats(); }
  void zero_grad() override;
  void save_file(const std::string& path, const float* values) const override;
  void save_hf_folder(const std::string& dir, const float* values) const override;
  void save_training_state(const std::string& path, const AdamW& optimizer,
                           const TrainingProgress& progress) const override;
  TrainingProgress load_training_state(const std::string& path, AdamW& optimizer) override;
  std::unique_ptr<TokenGenerator> generator(int positions) const override;

  // Reads adapters save_file wrote for this base and config into params_memory().
  void load_adapters(const std::string& path);
  // Detaches the adapters, adds scale · B · A into the base's parameters and hands the base over
  // (the merged model, for writing out); this model is left empty.
  std::unique_ptr<Model> release_merged();

 private:
  std::unique_ptr<ArenaModel> base_;
  std::unique_ptr<LoraAdapters> adapters_;
};

// An adapter file's first int32 ("LoRA" in a little-endian file).
inline constexpr std::int32_t kLoraAdapterMagic = 0x41526f4c;

// The LoRA settings an adapter file holds, for this base; throws like load_adapters when the file
// is not one or is for another base's shape.
LoraConfig read_lora_config(const std::string& path, const Model& base);

}  // namespace adjoint
