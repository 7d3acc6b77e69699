// What the arrays engine's models (GPT2, Llama) share: one arena each for parameters, gradients
// and activations (plus the generated backward's activation adjoints), the batch the last forward
// ran, and the choice of backward pass. Each model adds its config, its views into the arenas and
// its passes.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include "adjoint/model.hpp"

namespace adjoint {

class Bf16Parameters;
class LoraAdapters;

// One aligned allocation of floats, zero, touched once up front (first touch costs ~2.3 GB/s
// here, so it must never happen inside a training step), or, with touch_now false, left to the
// allocator's zero pages, each touched when it is first used or by touch() (a block that may end up
// partly unused, or never used, must not count whole in the RSS).
class FloatArena {
 public:
  FloatArena() = default;
  explicit FloatArena(std::size_t count, bool touch_now = true);
  FloatArena(FloatArena&& other) noexcept { *this = std::move(other); }
  FloatArena& operator=(FloatArena&& other) noexcept;
  float* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Maps every page now, keeping the values (one read and write per page, in parallel).
  void touch();

  // count floats of address space only: no page is readable (a read faults) or counts in the RSS
  // until make_usable covers it, zero then. For a parameter arena whose frozen matrices live
  // elsewhere (adjoint/bf16.hpp) and only a few small tensors in fp32.
  static FloatArena reserved(std::size_t count);
  // Makes the pages holding [begin, begin + count) of a reserved arena readable and writable.
  void make_usable(float* begin, std::size_t count);

 private:
  struct Free {
    std::size_t mapped_bytes;  // a reserved arena's mapping; 0: the allocator's block
    void operator()(void* block) const;
  };
  std::unique_ptr<void, Free> block_{nullptr, Free{0}};  // what the allocator (or mmap) returned
  float* data_ = nullptr;                                // block_ aligned to 64 bytes
  std::size_t size_ = 0;
};

// Throws std::invalid_argument naming the first of the n ids (inputs, or targets when given) that
// is outside [0, vocab_size): ids between V and a padded Vp are not tokens either. A target may
// also be kernels::no_target (a position without a loss).
void check_token_ids(const int* inputs, const int* targets, std::size_t n, int vocab_size);

class ArenaModel : public Model {
 public:
  ~ArenaModel() override;
  std::size_t num_parameters() const override { return params_memory_.size(); }
  float* params_memory() const override { return params_memory_.data(); }
  float* grads_memory() const override { return grads_memory_.data(); }

  // Sizes the activation arena (and the backward's: the hand-written one's scratch or the generated
  // one's adjoints) for (B, T) on first use; later batches must fit in it.
  void reserve_activations(int B, int T) override;
  std::size_t activation_floats() const override { return acts_memory_.size(); }

  // With targets (B,T) returns the mean cross-entropy; without, 0 and the model's logits().
  float forward(const int* inputs, const int* targets, int B, int T) override;
  // Accumulates the gradient of the last forward's mean loss into the gradients (the manual pass).
  void backward();
  float forward_backward(const int* inputs, const int* targets, int B, int T) override;
  void use_backward(Backward backward) override;
  Backward backward_pass() const override { return backward_; }
  bool has_backward(Backward backward) const override;
  std::size_t tape_bytes() const override { return tape_bytes_; }
  std::size_t activation_adjoint_floats() const override { return dacts_memory_.size(); }
  std::size_t backward_scratch_floats() const override { return scratch_memory_.size(); }
  void on_layer_backward(std::function<void(int layer)> hook) override { layer_backward_hook_ = std::move(hook); }
  void zero_grad() override;

  // LoRA (adjoint/lora.hpp): with adapters attached, every forward adds their outputs to the
  // projections they wrap and the backward computes their gradients (into
  // adapters->grads_memory()) and the input gradients, never a gradient of this model's own
  // parameters, which are frozen: the gradient arena is freed (grads_memory() is null after, and so
  // are the gradients' views). The generated backward then differentiates the activations only.
  // Null detaches.
  void attach_adapters(const LoraAdapters* adapters);
  const LoraAdapters* adapters() const { return adapters_; }
  // The bf16 stand-ins of a frozen base's matrices (null: every parameter is in the fp32 arena).
  const Bf16Parameters* bf16_parameters() const { return bf16_parameters_.get(); }
  // Takes the stand-ins of a model made with frozen_bf16 (their ranges are its arena's matrices).
  void keep_bf16_parameters(std::unique_ptr<Bf16Parameters> parameters);

 protected:
  // With frozen_bf16, the parameter arena is only reserved (FloatArena::reserved: the model makes
  // its fp32 tensors usable and hands its bf16 ones to keep_bf16_parameters) and there is no
  // gradient arena: such a model trains only adapters.
  ArenaModel(std::size_t num_parameters, bool frozen_bf16);

  // The model's views of the activations laid out for (B, T) from `memory` (or, with null
  // memory, only their count); likewise the generated backward's adjoints of them and the
  // hand-written backward's scratch.
  virtual std::size_t lay_out_activations(float* memory, int B, int T) = 0;
  virtual std::size_t lay_out_adjoints(float* memory, int B, int T) = 0;
  virtual std::size_t lay_out_scratch(float* memory, int B, int T) = 0;
  // Called once, when the activation arena is sized for (B, T).
  virtual void activations_reserved(int /*B*/, int /*T*/) {}
  // The passes over a prepared batch: forward (loss with targets, else logits), the hand-written
  // backward of the last forward, and adjc's forward+backward (bytes it taped into *tape_bytes).
  virtual float run_forward(const int* inputs, const int* targets, int B, int T) = 0;
  virtual void run_backward(const int* inputs, const int* targets, int B, int T) = 0;
  virtual float run_generated(const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) = 0;
  virtual int tokens() const = 0;  // the vocabulary ids are checked against
  // matmul_backward of the projection `tensor` (its index in parameter_tensors()) of layer l (dbias
  // may be null); with adapters attached, the input gradient through the frozen weight and the
  // adapters' backward, no dweight or dbias.
  void projection_backward(int tensor, int layer, float* dinp, float* dweight, float* dbias, const float* dout,
                           const float* inp, const float* weight, int N, int C, int OC) const;
  // The hand-written backward calls this when it has completed a layer's parameter gradients.
  void layer_backward_done(int layer) const {
    if (layer_backward_hook_) layer_backward_hook_(layer);
  }

  FloatArena params_memory_, grads_memory_;
  const LoraAdapters* adapters_ = nullptr;
  std::unique_ptr<Bf16Parameters> bf16_parameters_;

 private:
  // Sizes the arenas if needed, checks the token ids, remembers the batch.
  void prepare_batch(const int* inputs, const int* targets, int B, int T);

  // Allocates the arena of backward `pass` if it has none yet (sized for the reserved shape).
  void reserve_backward_memory(Backward pass);

  FloatArena acts_memory_, dacts_memory_, scratch_memory_;
  std::function<void(int layer)> layer_backward_hook_;  // on_layer_backward's
  Backward backward_ = Backward::manual;
  std::size_t tape_bytes_ = 0;
  int reserved_B_ = 0, reserved_T_ = 0;  // the shape the arenas were sized for
  int B_ = 0, T_ = 0;                    // the shape the views are laid out for
  const int* inputs_ = nullptr;          // the last forward's batch (caller-owned)
  const int* targets_ = nullptr;
};

}  // namespace adjoint
