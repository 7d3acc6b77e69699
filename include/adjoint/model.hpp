// What the commands, the optimizer and the files need from a model, whatever its architecture.
// GPT2 and Llama implement it; each keeps its own config, parameter layout and kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace adjoint {

class AdamW;
struct TrainingProgress;

// Which backward pass computes the gradients: the hand-written one or the one adjc generates from
// the model's forward (gpt2_loss).
enum class Backward { manual, generated };
// "manual" or "generated"; throws std::invalid_argument otherwise, or for "generated" when the
// build had no adjc.
Backward backward_from_name(const std::string& name);
// Whether this build contains the adjc-generated backward passes.
bool have_generated_backward();

// One parameter tensor of the arena, in file order.
struct ParameterTensor {
  const char* name;
  std::size_t size;  // floats
  bool decayed;      // AdamW's weight decay applies (the 2-D weights)
  int layers;        // L when the tensor is the L layers' slices one after another (layer l's at l·size/L), else 0
};

// KV-cached generation: feed tokens one position at a time, get the logits that predict the next.
class TokenGenerator {
 public:
  virtual ~TokenGenerator() = default;
  // Runs the token at the next position; returns the logits (at least the vocabulary's first V).
  // Throws std::out_of_range once the positions are used.
  virtual const float* feed(int token) = 0;
  virtual int position() const = 0;
};

class Model {
 public:
  virtual ~Model() = default;

  virtual std::size_t num_parameters() const = 0;
  virtual float* params_memory() const = 0;
  virtual float* grads_memory() const = 0;
  // The parameter tensors in arena (file) order; their sizes add up to num_parameters().
  virtual std::vector<ParameterTensor> parameter_tensors() const = 0;
  virtual int vocab_size() const = 0;
  virtual int max_seq_len() const = 0;
  // The token generation starts from (GPT-2's <|endoftext|>, Llama 3's <|begin_of_text|>, or 0
  // in a vocabulary without it).
  virtual int start_token() const = 0;
  // The shape in one line ("L=4 NH=4 C=256 V=50257 maxT=1024" for GPT-2, "Llama L=4 NH=4 NKV=2 ...").
  virtual std::string describe() const = 0;
  // Floating-point operations of one forward+backward at (B, T) (bench's GFLOP/s).
  virtual double step_flops(int B, int T) const = 0;

  // Sizes the activation arena for (B, T) on first use; later calls must not exceed it.
  virtual void reserve_activations(int B, int T) = 0;
  virtual std::size_t activation_floats() const = 0;
  // Floats of the activations the model lays out for (B, T) (not the backward's own memory).
  virtual std::size_t activation_floats(int B, int T) const = 0;
  // With targets (B,T) returns the mean cross-entropy; without, 0.
  virtual float forward(const int* inputs, const int* targets, int B, int T) = 0;
  // One forward and backward with the backward pass use_backward chose (manual unless told), the
  // gradients added into grads_memory.
  virtual float forward_backward(const int* inputs, const int* targets, int B, int T) = 0;
  // Throws std::invalid_argument when this build lacks that pass (has_backward).
  virtual void use_backward(Backward backward) = 0;
  virtual Backward backward_pass() const = 0;
  // Whether this build has that backward pass for this model.
  virtual bool has_backward(Backward backward) const = 0;
  // hook(layer) is called by the hand-written backward as it completes each layer's parameter
  // gradients (layers L-1 down to 0), so that data-parallel training can start summing them while
  // it goes on; the generated backward (and the tensor engine's) is one function and calls it never.
  // An empty hook: none.
  virtual void on_layer_backward(std::function<void(int layer)> hook) = 0;
  // Bytes the generated forward sweep left on the tape, last step (0 for the manual backward).
  virtual std::size_t tape_bytes() const = 0;
  // Floats of the generated backward's activation adjoints (0 until it is used).
  virtual std::size_t activation_adjoint_floats() const = 0;
  // Floats of the hand-written backward's scratch (0 until it is used).
  virtual std::size_t backward_scratch_floats() const = 0;
  virtual void zero_grad() = 0;

  // Writes values (num_parameters() floats: parameters or gradients) as this model's file, atomically.
  virtual void save_file(const std::string& path, const float* values) const = 0;
  // Writes values as a Hugging Face folder (config.json and an fp32 model.safetensors; see
  // adjoint/hf_checkpoint.hpp), creating dir, each file atomically.
  virtual void save_hf_folder(const std::string& dir, const float* values) const = 0;
  // Training-state files (parameters, AdamW moments, progress), each model its own header.
  virtual void save_training_state(const std::string& path, const AdamW& optimizer,
                                   const TrainingProgress& progress) const = 0;
  virtual TrainingProgress load_training_state(const std::string& path, AdamW& optimizer) = 0;
  // A KV-cached generator for up to `positions` positions (at most max_seq_len()).
  virtual std::unique_ptr<TokenGenerator> generator(int positions) const = 0;
};

// A model file (GPT-2 or Llama, told apart by the magic number) or a Hugging Face folder, loaded
// (frozen_bf16: load_hf_folder's).
std::unique_ptr<Model> load_any_model(const std::string& path, bool frozen_bf16 = false);
// A config name: gpt2-124M, dN (GPT-2) or llama-dN, llama3-bench, llama3.2-1B, llama3.1-8B,
// initialised randomly from seed.
std::unique_ptr<Model> model_from_name(const std::string& name, std::uint64_t seed);
// The model a training-state file holds the shape of (its parameters not yet loaded).
std::unique_ptr<Model> model_from_training_state(const std::string& path);

}  // namespace adjoint
