// Carving an arena into tensors and checking batches against it, shared by the GPT-2 and Llama
// engines.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

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

// Throws unless 1 <= T <= max_seq_len and B >= 1.
inline void check_batch_shape(int B, int T, int max_seq_len) {
  if (B <= 0 || T <= 0 || T > max_seq_len) {
    throw std::invalid_argument("batch shape B=" + std::to_string(B) + " T=" + std::to_string(T) +
                                " is out of range (1 <= T <= " + std::to_string(max_seq_len) + ")");
  }
}

// Throws unless (B, T) fits the (reserved_B, reserved_T) the activation arena was sized for.
inline void check_within_reserved(int B, int T, int reserved_B, int reserved_T) {
  if (B > reserved_B || T > reserved_T) {
    throw std::invalid_argument("batch shape B=" + std::to_string(B) + " T=" + std::to_string(T) +
                                " exceeds the reserved B=" + std::to_string(reserved_B) +
                                " T=" + std::to_string(reserved_T));
  }
}

}  // namespace adjoint
