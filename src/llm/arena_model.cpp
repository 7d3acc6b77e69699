// The arenas, batch bookkeeping and backward choice GPT2 and Llama share (adjoint/arena_model.hpp).
#include "adjoint/arena_model.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "adjoint/bf16.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/lora.hpp"
#include "layout.hpp"

namespace adjoint {

void FloatArena::Free::operator()(void* block) const {
  if (mapped_bytes) {
    ::munmap(block, mapped_bytes);
  } else {
    std::free(block);
  }
}

FloatArena::FloatArena(std::size_t count, bool touch_now) : size_(count) {
  const std::size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  // calloc hands out fresh pages (large blocks) without writing them: zero and not yet resident.
  block_.reset(touch_now ? std::aligned_alloc(64, bytes ? bytes : 64) : std::calloc(bytes + 64, 1));
  if (!block_) {
    throw std::runtime_error("out of memory: cannot allocate " + std::to_string(bytes / 1048576) + " MB");
  }
  const auto address = reinterpret_cast<std::uintptr_t>(block_.get());
  data_ = reinterpret_cast<float*>((address + 63) / 64 * 64);
  if (!touch_now) return;
  // Zero in parallel with the kernels' static schedule, so pages land near their users.
  float* p = data_;
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; i++) p[i] = 0.0f;
}

FloatArena& FloatArena::operator=(FloatArena&& other) noexcept {
  block_ = std::move(other.block_);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

void FloatArena::touch() {
  constexpr std::size_t kPageFloats = 4096 / sizeof(float);
  // volatile: the read and the write of the same value must both happen.
  volatile float* p = data_;
  const std::size_t pages = (size_ + kPageFloats - 1) / kPageFloats;
#pragma omp parallel for schedule(static)
  for (std::size_t page = 0; page < pages; page++) p[page * kPageFloats] = p[page * kPageFloats];
}

FloatArena FloatArena::reserved(std::size_t count) {
  const std::size_t bytes = (count * sizeof(float) + 4095) / 4096 * 4096;
  // PROT_NONE, MAP_NORESERVE: address space only, not counted against the memory it may never use.
  void* block = ::mmap(nullptr, bytes ? bytes : 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (block == MAP_FAILED) {
    throw std::runtime_error("cannot reserve " + std::to_string(bytes >> 20) +
                             " MB of address space: " + std::strerror(errno));
  }
  FloatArena arena;
  arena.block_ = std::unique_ptr<void, Free>(block, Free{bytes ? bytes : 4096});
  arena.data_ = static_cast<float*>(block);
  arena.size_ = count;
  return arena;
}

void FloatArena::make_usable(float* begin, std::size_t count) {
  if (count == 0) return;
  const auto first = reinterpret_cast<std::uintptr_t>(begin) / 4096 * 4096;
  const auto end = reinterpret_cast<std::uintptr_t>(begin + count);
  if (::mprotect(reinterpret_cast<void*>(first), end - first, PROT_READ | PROT_WRITE) != 0) {
    throw std::runtime_error(std::string("cannot map parameter memory: ") + std::strerror(errno));
  }
}

void check_token_ids(const int* inputs, const int* targets, std::size_t n, int vocab_size) {
  for (std::size_t i = 0; i < n; i++) {
    for (const int* ids : {inputs, targets}) {
      // A target may be kernels::no_target: a position without a loss.
      if (ids && (ids[i] < 0 || ids[i] >= vocab_size) && !(ids == targets && ids[i] == kernels::no_target)) {
        throw std::invalid_argument(std::string(ids == inputs ? "input" : "target") + " token id " +
                                    std::to_string(ids[i]) + " at position " + std::to_string(i) +
                                    " is out of range for vocabulary of " + std::to_string(vocab_size));
      }
    }
  }
}

#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
bool have_generated_backward() { return true; }
#else
bool have_generated_backward() { return false; }
#endif

Backward backward_from_name(const std::string& name) {
  if (name == "manual") return Backward::manual;
  if (name == "generated") {
    if (!have_generated_backward()) {
      throw std::invalid_argument("this build has no generated backward (configure with -DADJOINT_BUILD_ADJC=ON)");
    }
    return Backward::generated;
  }
  throw std::invalid_argument("unknown backward '" + name + "' (expected manual or generated)");
}

ArenaModel::ArenaModel(std::size_t num_parameters, bool frozen_bf16)
    : params_memory_(frozen_bf16 ? FloatArena::reserved(num_parameters) : FloatArena(num_parameters)),
      grads_memory_(frozen_bf16 ? FloatArena() : FloatArena(num_parameters, /*touch_now=*/false)) {}

ArenaModel::~ArenaModel() = default;

void ArenaModel::keep_bf16_parameters(std::unique_ptr<Bf16Parameters> parameters) {
  bf16_parameters_ = std::move(parameters);
}

void ArenaModel::attach_adapters(const LoraAdapters* adapters) {
  adapters_ = adapters;
  if (adapters) grads_memory_ = FloatArena();
}

void ArenaModel::reserve_activations(int B, int T) {
  check_batch_shape(B, T, max_seq_len());
  if (acts_memory_.size() == 0) {
    acts_memory_ = FloatArena(lay_out_activations(nullptr, B, T));
    reserved_B_ = B;
    reserved_T_ = T;
    // The gradients' pages too (untouched until now, so that a frozen model never maps them).
    grads_memory_.touch();
    activations_reserved(B, T);
  }
  check_within_reserved(B, T, reserved_B_, reserved_T_);
  lay_out_activations(acts_memory_.data(), B, T);
  B_ = B;
  T_ = T;
  // The hand-written backward's scratch comes with its first run (backward()): a model that only
  // runs forward never allocates it.
  if (backward_ == Backward::generated) reserve_backward_memory(backward_);
  if (dacts_memory_.size() != 0) lay_out_adjoints(dacts_memory_.data(), B, T);
  if (scratch_memory_.size() != 0) lay_out_scratch(scratch_memory_.data(), B, T);
}

void ArenaModel::reserve_backward_memory(Backward pass) {
  if (pass == Backward::generated && dacts_memory_.size() == 0) {
    dacts_memory_ = FloatArena(lay_out_adjoints(nullptr, reserved_B_, reserved_T_));
    lay_out_adjoints(dacts_memory_.data(), B_, T_);
  }
  if (pass == Backward::manual && scratch_memory_.size() == 0) {
    scratch_memory_ = FloatArena(lay_out_scratch(nullptr, reserved_B_, reserved_T_));
    lay_out_scratch(scratch_memory_.data(), B_, T_);
  }
}

void ArenaModel::prepare_batch(const int* inputs, const int* targets, int B, int T) {
  if (B != B_ || T != T_ || acts_memory_.size() == 0) reserve_activations(B, T);
  check_token_ids(inputs, targets, (std::size_t)B * T, tokens());
  inputs_ = inputs;
  targets_ = targets;
}

bool ArenaModel::has_backward(Backward backward) const {
  return backward == Backward::manual || have_generated_backward();
}

void ArenaModel::use_backward(Backward backward) {
  if (!has_backward(backward)) throw std::invalid_argument("this build has no generated backward");
  backward_ = backward;
  // Already sized for a batch: add the adjoint arena for that shape now.
  if (backward == Backward::generated && acts_memory_.size() != 0) reserve_backward_memory(backward);
}

float ArenaModel::forward(const int* inputs, const int* targets, int B, int T) {
  prepare_batch(inputs, targets, B, T);
  return run_forward(inputs, targets, B, T);
}

void ArenaModel::backward() {
  if (!targets_) throw std::logic_error("backward() needs a forward() with targets");
  reserve_backward_memory(Backward::manual);
  run_backward(inputs_, targets_, B_, T_);
}

float ArenaModel::forward_backward(const int* inputs, const int* targets, int B, int T) {
  if (grads_memory_.size() == 0 && !adapters_) {
    throw std::logic_error("a frozen model (bf16 base, or adapters detached) has no gradients");
  }
  if (backward_ == Backward::manual) {
    const float loss = forward(inputs, targets, B, T);
    backward();
    return loss;
  }
  prepare_batch(inputs, targets, B, T);
  return run_generated(inputs, targets, B, T, &tape_bytes_);
}

void ArenaModel::projection_backward(int tensor, int layer, float* dinp, float* dweight, float* dbias,
                                     const float* dout, const float* inp, const float* weight, int N, int C,
                                     int OC) const {
  // With adapters, the base is frozen: its input gradient and the adapters', no dweight GEMM.
  adapted_projection_backward(dinp, adapters_ ? nullptr : dweight, adapters_ ? nullptr : dbias, dout, inp, weight,
                              adapters_, tensor, layer, N, C, OC);
}

void ArenaModel::zero_grad() {
  if (grads_memory_.size() != 0) std::memset(grads_memory_.data(), 0, grads_memory_.size() * sizeof(float));
}

}  // namespace adjoint
