// The backward adjc generates from gpt2_loss and llama_loss against the hand-written ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/llama.hpp"
#include "../common/random_tokens.hpp"

namespace {

using adjoint::Backward;
using adjoint::GPT2;
using adjoint::GPT2Config;

// Tolerance: the relative error ||generated - manual|| / ||manual|| (2-norm) < 1e-6 per parameter
// tensor. Both run the same matmul, attention and layernorm kernels; GELU's, the residual's (and
// Llama's RMSNorm, RoPE and SwiGLU) backward are adjc's own, so they differ by float rounding
// (gpt2-124M: ~8e-7 at worst).
template <typename Model, typename Config>
void expect_same_gradients(const Config& c, int B, int T, std::uint64_t seed) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  Model manual(c), generated(c);
  manual.init_random(seed);
  generated.init_random(seed);
  generated.use_backward(Backward::generated);
  const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, c.vocab_size, seed + 1);
  // Two steps: the second checks that the generated backward leaves its adjoints clean.
  for (int step = 0; step < 2; step++) {
    const float loss_manual = manual.forward_backward(tokens.data(), tokens.data() + 1, B, T);
    const float loss_generated =
        generated.forward_backward(tokens.data(), tokens.data() + 1, B, T);
    EXPECT_EQ(loss_manual, loss_generated);
  }
  const float* a = manual.grads_memory();
  const float* b = generated.grads_memory();
  double worst = 0;
  for (const adjoint::ParameterTensor& tensor : manual.parameter_tensors()) {
    if (tensor.size == 0) continue;  // a tied head
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < tensor.size; i++) {
      ASSERT_TRUE(std::isfinite(b[i])) << tensor.name;
      diff += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
      ref += (double)a[i] * a[i];
    }
    ASSERT_GT(ref, 0.0) << tensor.name << " has no gradient: the comparison proves nothing";
    const double relative = std::sqrt(diff / ref);
    EXPECT_LT(relative, 1e-6) << tensor.name;
    worst = std::max(worst, relative);
    a += tensor.size;
    b += tensor.size;
  }
  std::printf("worst relative error over the parameter tensors: %.2e\n", worst);
}

void expect_same_gradients(const GPT2Config& c, int B, int T, std::uint64_t seed) {
  expect_same_gradients<GPT2>(c, B, T, seed);
}

TEST(GeneratedBackward, MatchesManualOddVocabAndHeads) { expect_same_gradients(adjoint::gpt2_config(16, 67, 2, 3, 48), 3, 16, 1); }
TEST(GeneratedBackward, MatchesManualSinglePosition) { expect_same_gradients(adjoint::gpt2_config(16, 67, 2, 3, 48), 2, 1, 2); }
TEST(GeneratedBackward, MatchesManualDeeper) { expect_same_gradients(adjoint::gpt2_config(32, 200, 3, 4, 64), 2, 19, 3); }
// gpt2-124M (vocab 50257, 12 layers, 12 heads, 768 channels) at (B,T) = (4,64): ~10 s, 3 GB.
TEST(GeneratedBackward, MatchesManualGPT2Small) { expect_same_gradients(adjoint::gpt2_config(1024, 50257, 12, 12, 768), 4, 64, 4); }

// The tape holds no attention row's values (their sums are in att_sum, their maxima are dead), so
// only the cross-entropy's sum per position and a few counters and pointers per layer.
TEST(GeneratedBackward, TapeHoldsPointersPerLayerNotActivations) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  auto tape_bytes = [](int L, int B, int T) {
    GPT2 model(adjoint::gpt2_config(32, 67, L, 3, 48));
    model.init_random(4);
    const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, 67, 5);
    model.use_backward(Backward::generated);
    model.forward_backward(tokens.data(), tokens.data() + 1, B, T);
    return model.tape_bytes();
  };
  const std::size_t small = tape_bytes(2, 1, 4), large = tape_bytes(2, 4, 32), deeper = tape_bytes(3, 1, 4);
  std::printf("tape bytes: %zu at (1,4), %zu at (4,32), %zu with 3 layers\n", small, large, deeper);
  EXPECT_GT(small, 0u);
  EXPECT_LT(small, 4096u) << "not a few KB";
  EXPECT_GE(large, small);
  EXPECT_LE(large - small, sizeof(float) * (4 * 32 - 1 * 4)) << "more than the cross-entropy's sum per position";
  EXPECT_LT(small, deeper) << "tape does not grow with the layers";
  EXPECT_LT(deeper - small, 256u) << "more than a few counters and pointers per layer";
}

// The generated backward's adjoint arena: the logits' adjoint (B·T·Vp floats) shares its memory
// with the residual stream's, the layers' and the projection's adjoints (src/llm/layout.hpp), so
// beside it only the final norm's and the losses' adjoints take memory (8 of 16 floats' alignment
// padding each). Fails if the arena grows past that, as it would by the layers' 17·B·T·C floats.
template <typename Model, typename Config>
void expect_adjoint_arena_within_logits(const Config& c, int vocab, int B, int T, std::size_t norm_rows) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  Model model(c);
  model.init_random(8);
  const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, c.vocab_size, 9);
  model.use_backward(Backward::generated);
  model.forward_backward(tokens.data(), tokens.data() + 1, B, T);
  const std::size_t BT = (std::size_t)B * T, C = c.channels;
  const std::size_t bound = BT * vocab + BT * C + norm_rows * BT + 16 * (3 + norm_rows);
  std::printf("adjoint arena: %zu floats, bound %zu\n", model.activation_adjoint_floats(), bound);
  EXPECT_LE(model.activation_adjoint_floats(), bound);
  EXPECT_GE(model.activation_adjoint_floats(), BT * vocab);
}

TEST(GeneratedBackward, AdjointArenaWithinLogitsGPT2) {
  const GPT2Config c = adjoint::gpt2_config(16, 1000, 3, 2, 16);
  expect_adjoint_arena_within_logits<GPT2>(c, c.padded_vocab_size, 2, 8, 3);
}

adjoint::LlamaConfig llama_config(int L, int NH, int NKV, int C, int V, bool tied, bool scaled) {
  adjoint::LlamaConfig c;
  c.max_seq_len = 64, c.vocab_size = V, c.num_layers = L, c.num_heads = NH, c.num_kv_heads = NKV, c.channels = C;
  c.multiple_of = 32, c.tied_head = tied, c.use_scaled_rope = scaled, c.rope_original_context = 16;
  c.rope_theta = 10000.0f;
  return c;
}

TEST(GeneratedBackward, LlamaMatchesManualGroupedScaledUntied) {
  expect_same_gradients<adjoint::Llama>(llama_config(2, 6, 2, 48, 97, false, true), 3, 13, 5);
}
TEST(GeneratedBackward, LlamaMatchesManualTiedSinglePosition) {
  expect_same_gradients<adjoint::Llama>(llama_config(2, 6, 3, 48, 97, true, false), 2, 1, 6);
}
// A realistic width: llama3-bench's body (C=768, 12 heads on 4 key/value heads, hidden 2048) in 2
// layers, on a 4096-token vocabulary, at (B,T) = (4,64).
TEST(GeneratedBackward, LlamaMatchesManualBenchWidth) {
  adjoint::LlamaConfig c = adjoint::llama_config_from_name("llama3-bench");
  c.num_layers = 2, c.vocab_size = 4096;
  expect_same_gradients<adjoint::Llama>(c, 4, 64, 7);
}

TEST(GeneratedBackward, AdjointArenaWithinLogitsLlama) {
  expect_adjoint_arena_within_logits<adjoint::Llama>(llama_config(2, 2, 1, 16, 1000, false, false), 1000, 2, 8, 2);
}

// Beside the activations, the hand-written backward needs its scratch and the generated one its
// adjoints (each pass its own arena, allocated only if it runs). The generated one's exceeds the
// scratch by less than the logits' adjoint (B·T·Vp floats: the hand-written backward writes the
// logits' gradient over the probabilities, adjc's reverse into an adjoint of its own): everything
// else it holds fits within the scratch. Fails if a buffer grows the generated arena past that, at
// the bench's shapes and at full context, for both models' real configs (counted, not allocated).
TEST(GeneratedBackward, ArenaBesideLogitsAdjointWithinManual) {
  const GPT2Config gpt2 = adjoint::gpt2_config_from_name("gpt2-124M");
  const adjoint::LlamaConfig llama = adjoint::llama_config_from_name("llama3-bench");
  for (const auto& [B, T] : {std::pair{1, 16}, {1, 32}, {2, 16}, {1, 64}, {4, 64}, {4, 1024}}) {
    const std::size_t BT = (std::size_t)B * T;
    const std::size_t gpt2_generated = adjoint::gpt2_backward_floats(gpt2, Backward::generated, B, T);
    const std::size_t gpt2_manual = adjoint::gpt2_backward_floats(gpt2, Backward::manual, B, T);
    EXPECT_LE(gpt2_generated, gpt2_manual + BT * gpt2.padded_vocab_size) << "gpt2-124M B=" << B << " T=" << T;
    const std::size_t llama_generated = adjoint::llama_backward_floats(llama, Backward::generated, B, T);
    const std::size_t llama_manual = adjoint::llama_backward_floats(llama, Backward::manual, B, T);
    EXPECT_LE(llama_generated, llama_manual + BT * llama.vocab_size) << "llama3-bench B=" << B << " T=" << T;
    if (B == 4 && T == 64) {
      std::printf(
          "floats beside the activations at (4,64): gpt2-124M manual %zu generated %zu, llama3-bench manual %zu "
          "generated %zu\n",
          gpt2_manual, gpt2_generated, llama_manual, llama_generated);
    }
  }
}

// Loop bounds are evaluated again in the reverse and RMSNorm's sums recomputed, so the tape holds
// the same few counters and sizes per layer at every batch and sequence length, plus the
// cross-entropy row's sum per position (its maximum is dead: the exponentials are read back).
TEST(GeneratedBackward, LlamaTapeHoldsOneFloatPerPosition) {
  if (!adjoint::have_generated_backward()) GTEST_SKIP() << "SKIPPED: this build has no adjc-generated backward";
  const int C = 384;
  auto tape_bytes = [](int L, int B, int T) {
    adjoint::Llama model(llama_config(L, 6, 2, C, 97, false, true));
    model.init_random(4);
    const std::vector<int> tokens = random_tokens((std::size_t)B * T + 1, 97, 5);
    model.use_backward(Backward::generated);
    model.forward_backward(tokens.data(), tokens.data() + 1, B, T);
    return model.tape_bytes();
  };
  const std::size_t small = tape_bytes(2, 1, 4), large = tape_bytes(2, 4, 32);
  std::printf("tape bytes: %zu at (1,4), %zu at (4,32)\n", small, large);
  EXPECT_GE(large, small);
  EXPECT_LE(large - small, sizeof(float) * (4 * 32 - 1 * 4));
}

}  // namespace
