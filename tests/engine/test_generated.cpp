// The backward adjc generates from gpt2_loss against the hand-written one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/random.hpp"

namespace {

using adjoint::Backward;
using adjoint::GPT2;
using adjoint::GPT2Config;

GPT2Config config(int V, int C, int NH, int L, int maxT) {
  GPT2Config c;
  c.vocab_size = V;
  c.padded_vocab_size = adjoint::padded_vocab(V);
  c.channels = C;
  c.num_heads = NH;
  c.num_layers = L;
  c.max_seq_len = maxT;
  return c;
}

std::vector<int> random_tokens(std::size_t n, int vocab, std::uint64_t seed) {
  adjoint::Rng rng(seed);
  std::vector<int> t(n);
  for (int& x : t) x = int(rng.next_u64() % vocab);
  return t;
}

// Tolerance: max |generated - manual| / max |manual| < 1e-6 per parameter tensor. Both run the
// same kernels in the same order, so they agree to float rounding of the accumulation order.
void expect_same_gradients(const GPT2Config& c, int B, int T, std::uint64_t seed) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  GPT2 manual(c), generated(c);
  manual.init_random(seed);
  generated.init_random(seed);
  generated.use_backward(Backward::generated);
  const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, c.vocab_size, seed + 1);
  // Two steps: the second checks that the generated backward leaves its adjoints clean.
  for (int step = 0; step < 2; step++) {
    const float loss_manual = manual.forward_backward(tokens.data(), tokens.data() + 1, B, T, Backward::manual);
    const float loss_generated =
        generated.forward_backward(tokens.data(), tokens.data() + 1, B, T, Backward::generated);
    EXPECT_EQ(loss_manual, loss_generated);
  }
  const auto sizes = adjoint::parameter_sizes(c);
  const float* a = manual.grads_memory();
  const float* b = generated.grads_memory();
  for (int t = 0; t < adjoint::kNumParameterTensors; t++) {
    double max_diff = 0, max_ref = 0;
    for (std::size_t i = 0; i < sizes[t]; i++) {
      ASSERT_TRUE(std::isfinite(b[i])) << adjoint::kParameterNames[t];
      max_diff = std::max(max_diff, (double)std::abs(a[i] - b[i]));
      max_ref = std::max(max_ref, (double)std::abs(a[i]));
    }
    EXPECT_LT(max_diff, 1e-6 * std::max(max_ref, 1e-30)) << adjoint::kParameterNames[t];
    EXPECT_GT(max_ref, 0.0) << adjoint::kParameterNames[t] << " has no gradient: the comparison proves nothing";
    a += sizes[t];
    b += sizes[t];
  }
}

TEST(GeneratedBackward, MatchesManualOddVocabAndHeads) { expect_same_gradients(config(67, 48, 3, 2, 16), 3, 16, 1); }
TEST(GeneratedBackward, MatchesManualSinglePosition) { expect_same_gradients(config(67, 48, 3, 2, 16), 2, 1, 2); }
TEST(GeneratedBackward, MatchesManualDeeper) { expect_same_gradients(config(200, 64, 4, 3, 32), 2, 19, 3); }

TEST(GeneratedBackward, TapeHoldsPointersPerLayerNotActivations) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  auto tape_bytes = [](int L, int B, int T) {
    GPT2 model(config(67, 48, 3, L, 32));
    model.init_random(4);
    const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, 67, 5);
    model.use_backward(Backward::generated);
    model.forward_backward(tokens.data(), tokens.data() + 1, B, T, Backward::generated);
    return model.tape_bytes();
  };
  const std::size_t small = tape_bytes(2, 1, 4);
  EXPECT_GT(small, 0u);
  EXPECT_EQ(small, tape_bytes(2, 4, 32)) << "tape grows with the activations";
  EXPECT_LT(small, tape_bytes(3, 1, 4)) << "tape does not grow with the layers";
  EXPECT_LT(tape_bytes(3, 1, 4) - small, 256u) << "more than a few pointers per layer";
}

}  // namespace
