// Frozen weights kept in bf16 with fp32 compute. A model whose base is frozen (LoRA) and stored as
// bf16 keeps its fp32 parameter views (the forward's pointer arithmetic is unchanged), but the
// address range of each bf16 matrix is registered with the bf16 values that stand for it: gemm()
// sees a registered pointer and hands the bf16 values to our few-row kernel, which widens them in
// registers, for products of at most kBf16DirectMaxRows rows (adjoint/gemm.hpp); larger ones
// convert the operand, a bounded panel at a time, into fp32 scratch (reused). The embedding, read
// by row lookups adjc differentiates, stays fp32. bf16 -> fp32 is exact, so results equal those of
// the fp32-converted base up to the order GEMM sums in (bit for bit where our kernel runs both). A read of such a matrix through any other path
// faults (the arena's pages there are not mapped). See docs/finetuning.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace adjoint {

// The fp32 value of a bf16 one (its upper 16 bits).
inline float bf16_to_float(std::uint16_t value) {
  const std::uint32_t bits = std::uint32_t(value) << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof(f));
  return f;
}
// out[i] = in[i] for count values (no threads: callers split the work).
void bf16_to_float(const std::uint16_t* in, std::size_t count, float* out);
// Whether a bf16 value is finite (its exponent is not all ones).
inline bool bf16_is_finite(std::uint16_t value) { return (value & 0x7f80) != 0x7f80; }

// The bf16 values standing for fp32 address `at` when it lies in a registered range, else null.
const std::uint16_t* registered_bf16(const float* at);

// C = alpha·op(A)·op(B) + beta·C as adjoint::gemm, for a B operand inside a registered range;
// returns false (doing nothing) when B is not registered. Where bf16_weight_library names our
// kernel it reads B directly; elsewhere B is converted a panel of whole rows at
// a time into scratch of about kBf16PanelFloats floats (at least 16 rows): for inp·Wᵀ a block of
// C's columns (each element summed as in one product), for dout·W a slice of the sum over k (the
// sums then go in slices: equal to one product's to rounding). Throws std::logic_error when B runs
// past its range or A is a registered weight.
inline constexpr std::size_t kBf16PanelFloats = std::size_t(1) << 22;
bool gemm_registered_bf16(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                          const float* b, int ldb, float beta, float* c, int ldc);

// The bf16 stand-ins of one model's frozen parameters: ranges of its fp32 parameter arena, each
// either mapped (values owned by what `keep_alive` holds, such as a mapped safetensors file) or
// copied into memory this object owns. Registered while it lives.
class Bf16Parameters {
 public:
  explicit Bf16Parameters(std::shared_ptr<const void> keep_alive) : keep_alive_(std::move(keep_alive)) {}
  ~Bf16Parameters();
  Bf16Parameters(const Bf16Parameters&) = delete;
  Bf16Parameters& operator=(const Bf16Parameters&) = delete;

  // [view, view + count) reads as values (2-byte aligned, living as long as keep_alive).
  void map(const float* view, std::size_t count, const std::uint16_t* values);
  // [view, view + count) reads as a new owned bf16 block, returned for the caller to fill.
  std::uint16_t* copy(const float* view, std::size_t count);
  // The owned value standing for `at` (inside a block copy made), else null.
  std::uint16_t* owned(const float* at) const;
  std::size_t owned_bytes() const { return owned_bytes_; }

 private:
  struct OwnedBlock {
    const float* view;
    std::size_t count;
    std::unique_ptr<std::uint16_t[]> values;
  };
  std::shared_ptr<const void> keep_alive_;
  std::vector<OwnedBlock> owned_;
  std::vector<const float*> registered_;
  std::size_t owned_bytes_ = 0;
};

}  // namespace adjoint
