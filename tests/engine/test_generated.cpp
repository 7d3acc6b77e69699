// The backward adjc generates from gpt2_loss against the hand-written one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "../common/random_tokens.hpp"

namespace {

using adjoint::Backward;
using adjoint::GPT2;
using adjoint::GPT2Config;

// Tolerance: the relative error ||generated - manual|| / ||manual|| (2-norm) < 1e-6 per parameter
// tensor. Both run the same matmul, attention and layernorm kernels; GELU's and the residual's
// backward are adjc's own, so they differ by float rounding (gpt2-124M: ~8e-7 at worst).
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
  double worst = 0;
  for (int t = 0; t < adjoint::kNumParameterTensors; t++) {
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < sizes[t]; i++) {
      ASSERT_TRUE(std::isfinite(b[i])) << adjoint::kParameterNames[t];
      diff += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
      ref += (double)a[i] * a[i];
    }
    ASSERT_GT(ref, 0.0) << adjoint::kParameterNames[t] << " has no gradient: the comparison proves nothing";
    const double relative = std::sqrt(diff / ref);
    EXPECT_LT(relative, 1e-6) << adjoint::kParameterNames[t];
    worst = std::max(worst, relative);
    a += sizes[t];
    b += sizes[t];
  }
  std::printf("worst relative error over the parameter tensors: %.2e\n", worst);
}

TEST(GeneratedBackward, MatchesManualOddVocabAndHeads) { expect_same_gradients(adjoint::gpt2_config(16, 67, 2, 3, 48), 3, 16, 1); }
TEST(GeneratedBackward, MatchesManualSinglePosition) { expect_same_gradients(adjoint::gpt2_config(16, 67, 2, 3, 48), 2, 1, 2); }
TEST(GeneratedBackward, MatchesManualDeeper) { expect_same_gradients(adjoint::gpt2_config(32, 200, 3, 4, 64), 2, 19, 3); }
// gpt2-124M (vocab 50257, 12 layers, 12 heads, 768 channels) at (B,T) = (4,64): ~10 s, 3 GB.
TEST(GeneratedBackward, MatchesManualGPT2Small) { expect_same_gradients(adjoint::gpt2_config(1024, 50257, 12, 12, 768), 4, 64, 4); }

TEST(GeneratedBackward, TapeHoldsPointersPerLayerNotActivations) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  auto tape_bytes = [](int L, int B, int T) {
    GPT2 model(adjoint::gpt2_config(32, 67, L, 3, 48));
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
