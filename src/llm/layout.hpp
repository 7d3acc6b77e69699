// Carving an arena into tensors, shared by the GPT-2 and Llama engines.
#pragma once
#include <cstddef>

namespace adjoint {

// Carves 64-byte-aligned tensors out of memory, one after another (with null memory, only counts).
class Layout {
 public:
  explicit Layout(float* memory) : memory_(memory) {}
  void take(float*& slot, std::size_t count) {
    slot = memory_ ? memory_ + used_ : nullptr;
    used_ += (count + 15) / 16 * 16;
  }
  std::size_t used() const { return used_; }

 private:
  float* memory_;
  std::size_t used_ = 0;
};

}  // namespace adjoint
