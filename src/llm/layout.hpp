// Carving an arena into tensors and checking batches against it, shared by the GPT-2 and Llama
// engines.
#pragma once
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

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

// The adjoints of the activations `a` for the generated backward, for either model. All layers
// share one set of layer adjoints: the reverse sweep of block l reads and writes only block l's
// (the forward touches only layer l's activations in iteration l), and leaves them zero — the
// custom pullbacks clear the output adjoints they consume, the generated ones zero what their
// loops overwrote — before block l-1 starts. The residual stream keeps one adjoint per position in
// the stack (block l's input is block l-1's output). The probabilities are written over the logits,
// so their adjoints share memory too (BT × Vp): the generated cross-entropy reverse reads the
// probabilities' adjoint (zero: nothing reads the probabilities) and writes the logits' there, and
// the LM head's pullback clears it. That adjoint is live only from the cross-entropy's reverse to
// the LM head's pullback, before which nothing writes the residual stream's, the layers' or the
// projection's adjoints: they share its memory (all zero again when the pullback returns). What the
// two live at once use — the final norm's and the losses' adjoints — has memory of its own.
// take_layer(m, layer) lays out one layer's tensors. The tests compare the gradients with the
// hand-written backward's over two steps.
template <typename Activations, typename LayerActivations, typename TakeLayer>
std::size_t adjoint_views(Activations& d, std::vector<LayerActivations>& layers, float* memory, std::size_t L,
                          std::size_t C, std::size_t BT, std::size_t Vp, TakeLayer&& take_layer) {
  Layout m(memory);
  d = Activations{};
  m.take(d.lnf, BT * C);
  if constexpr (requires { d.lnf_mean; }) m.take(d.lnf_mean, BT);  // layernorm's; RMSNorm has none
  m.take(d.lnf_rstd, BT);
  m.take(d.losses, BT);
  const std::size_t shared = m.used();
  m.take(d.probs, BT * Vp);
  Layout after_head(memory ? memory + shared : nullptr);
  after_head.take(d.residual, (L + 1) * BT * C);
  LayerActivations shared_layer{};
  take_layer(after_head, shared_layer);
  layers.assign(L, shared_layer);
  d.layers = layers.data();
  after_head.take(d.proj, BT * C);
  return std::max(m.used(), shared + after_head.used());
}

}  // namespace adjoint
