// Text generation with a KV cache: each new token costs one position, not the whole sequence.
#pragma once
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/random.hpp"

namespace adjoint {

class Generator : public TokenGenerator {
 public:
  // Caches `positions` positions (0 or more than the model has: max_seq_len), so that a short
  // sample does not allocate the cache of the longest one.
  explicit Generator(const GPT2& model, int positions = 0);

  // Runs the token at the next position (0, 1, …) and returns the (Vp) logits that predict
  // the one after it. Throws once the cached positions are used.
  const float* feed(int token) override;
  int position() const override { return position_; }
  void reset() { position_ = 0; }

 private:
  const GPT2& model_;
  int positions_;         // cached positions
  FloatArena qkv_cache_;  // (L, positions, 3C): each layer's q, k, v of every position so far
  FloatArena scratch_;    // one position's activations
  int position_ = 0;
};

// Samples from softmax(logits / temperature) over the first V logits, restricted to the
// top_k most likely (top_k <= 0: all). temperature 0 picks the most likely token.
int sample_token(const float* logits, int V, float temperature, int top_k, Rng& rng);

}  // namespace adjoint
