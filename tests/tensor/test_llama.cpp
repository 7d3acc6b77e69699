// The tensor Llama (nn_llama.hpp) against the arrays engine on the same weights: the loss, and every
// parameter's gradient of the backward adjc generates from llama_loss against both of the
// arrays engine's backward passes (manual and generated), on the odd shapes of the arrays engine's tests.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "adjoint/llama.hpp"
#include "lora_gradients.hpp"
#include "adjoint/nn_llama.hpp"
#include "../common/random_tokens.hpp"

namespace {

using namespace adjoint;

// Odd everywhere: V = 97, 6 query heads of 8 channels on NKV key/value heads, hidden size from
// multiple_of 32, RoPE scaling at a short original context so that it changes frequencies.
LlamaConfig odd_config(int NKV, bool tied, bool scaled) {
  LlamaConfig c;
  c.max_seq_len = 64, c.vocab_size = 97, c.num_layers = 2, c.num_heads = 6, c.num_kv_heads = NKV, c.channels = 48;
  c.multiple_of = 32, c.tied_head = tied, c.use_scaled_rope = scaled, c.rope_original_context = 16;
  c.rope_theta = 10000.0f;
  return c;
}

using lora_gradients::relative_error;
const std::vector<std::string> kAllLoraTargets = {"q", "k", "v", "o", "gate", "up", "down"};

// Every parameter tensor of `ours` against `reference` (arrays-engine layout): rel. err. (2-norm) < 1e-5 each.
void expect_same_gradients(const LlamaConfig& config, const float* ours, const float* reference, const char* what) {
  const auto sizes = parameter_sizes(config);
  for (int i = 0; i < kNumLlamaParameterTensors; i++) {
    if (sizes[i] == 0) continue;  // a tied head's lm_head is wte
    double norm = 0;
    for (std::size_t j = 0; j < sizes[i]; j++) norm += double(reference[j]) * reference[j];
    EXPECT_GT(norm, 0) << what << ", " << kLlamaParameterNames[i] << ": the reference is zero";
    EXPECT_LT(relative_error(ours, reference, sizes[i]), 1e-5) << what << ", " << kLlamaParameterNames[i];
    ours += sizes[i];
    reference += sizes[i];
  }
}

// On one batch and the same weights: the tensor engine's loss and gradient (adjc's, through
// TensorLlama, and llama_loss_gradient on a model-shaped gradient of plain memory) against the
// arrays engine's manual and generated backward passes.
void expect_same_as_arrays_engine(const LlamaConfig& config, int B, int T) {
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  adjoint::Llama arrays_model(config);
  arrays_model.init_random(7);
  const std::vector<int> inputs = random_tokens(std::size_t(B) * T, config.vocab_size, 1);
  const std::vector<int> targets = random_tokens(std::size_t(B) * T, config.vocab_size, 2);
  std::vector<std::vector<float>> arrays_grads;
  float arrays_loss = 0;
  for (Backward backward : {Backward::manual, Backward::generated}) {
    if (!arrays_model.has_backward(backward)) continue;
    arrays_model.zero_grad();
    arrays_model.use_backward(backward);
    arrays_loss = arrays_model.forward_backward(inputs.data(), targets.data(), B, T);
    arrays_grads.emplace_back(arrays_model.grads_memory(), arrays_model.grads_memory() + arrays_model.num_parameters());
  }
  EXPECT_GT(arrays_loss, 0.5f * std::log(float(config.vocab_size)));  // a real loss, not zeros

  nn::TensorLlama tensor(arrays_model);
  arrays_model.zero_grad();
  const float loss = tensor.forward_backward(inputs.data(), targets.data(), B, T);
  EXPECT_NEAR(loss, arrays_loss, 1e-6 * arrays_loss);
  for (const auto& reference : arrays_grads)
    expect_same_gradients(config, arrays_model.grads_memory(), reference.data(), "TensorLlama");

  // The same through llama_loss_gradient into a gradient object over memory of our own.
  std::vector<float> grads(arrays_model.num_parameters(), 0.0f);
  nn::LlamaViews model(config, arrays_model.params()), gradient(config, parameter_views(grads.data(), config));
  const nn::RotaryTable rope(config, T);
  Arena arena;
  ArenaScope scope(arena);
  EXPECT_NEAR(nn::llama_loss(model.model(), rope.rotary(), inputs.data(), targets.data(), B, T), arrays_loss,
              1e-6 * arrays_loss);
  const float loss2 =
      nn::llama_loss_gradient(model.model(), gradient.model(), rope.rotary(), inputs.data(), targets.data(), B, T);
  EXPECT_NEAR(loss2, arrays_loss, 1e-6 * arrays_loss);
  expect_same_gradients(config, grads.data(), arrays_grads.front().data(), "llama_loss_gradient");
}

TEST(TensorLlama, SameAsEngineGroupedNKV2ScaledUntied) {
  expect_same_as_arrays_engine(odd_config(2, false, true), 3, 13);
}
TEST(TensorLlama, SameAsEngineGroupedNKV3UnscaledTied) {
  expect_same_as_arrays_engine(odd_config(3, true, false), 2, 7);
}
TEST(TensorLlama, SameAsEngineSinglePosition) { expect_same_as_arrays_engine(odd_config(3, false, true), 2, 1); }
// llama3-bench's body (C=768, 12 heads on 4 key/value heads, hidden 2048) in 2 layers on a
// 4096-token vocabulary, at (B,T) = (4,64).
TEST(TensorLlama, SameAsEngineAtBenchWidth) {
  LlamaConfig c = llama_config_from_name("llama3-bench");
  c.num_layers = 2, c.vocab_size = 4096;
  expect_same_as_arrays_engine(c, 4, 64);
}

TEST(TensorLlama, RejectsTokenIdsAndLengthsOutOfRange) {
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  adjoint::Llama arrays_model(odd_config(2, true, false));
  arrays_model.init_random(1);
  nn::TensorLlama tensor(arrays_model);
  std::vector<int> inputs(4, 1), targets(4, 2);
  inputs[2] = 97;
  try {
    tensor.forward_backward(inputs.data(), targets.data(), 1, 4);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "input token id 97 at position 2 is out of range for vocabulary of 97");
  }
  inputs[2] = 1;
  std::vector<int> long_inputs(65, 1), long_targets(65, 1);
  EXPECT_THROW(tensor.forward_backward(long_inputs.data(), long_targets.data(), 1, 65), std::invalid_argument);
}

// LoRA on every Llama target (q, k, v in the fused qkvw; o; gate, up, down).
TEST(TensorLlama, LoraAdapterGradientsSameAsEngineNKV2ScaledUntied) {
  lora_gradients::expect_same_adapter_gradients<nn::TensorLlama>(
      std::make_unique<adjoint::Llama>(odd_config(2, false, true)), kAllLoraTargets, 3, 13);
}
TEST(TensorLlama, LoraAdapterGradientsSameAsEngineNKV3Tied) {
  lora_gradients::expect_same_adapter_gradients<nn::TensorLlama>(
      std::make_unique<adjoint::Llama>(odd_config(3, true, false)), kAllLoraTargets, 2, 7);
}

// adapted_linear reads the adapters from their own arena and its pullback adds into it: a lora
// tensor, or an adjoint of it, that is not that arena is refused rather than silently ignored.
TEST(TensorLlama, AdaptedLinearRefusesALoraTensorNotTheAdapters) {
  auto base = std::make_unique<adjoint::Llama>(odd_config(2, false, false));
  base->init_random(1);
  LoraModel lora(std::move(base), {2, 4.0f, {"o"}}, 1);
  const int C = 48, n = int(lora.num_parameters());
  std::vector<float> x_values(2 * C, 0.5f), other(n, 0.0f);
  Arena arena;
  ArenaScope scope(arena);
  const Tensor x = tensor_view(x_values.data(), {2, C}), weight = tensor_view(lora.base().params_memory(), {C, C});
  const Tensor params = tensor_view(lora.params_memory(), {n}), wrong = tensor_view(other.data(), {n});
  try {
    adapted_linear(x, weight, Tensor{}, wrong, &lora.adapters(), kLlamaAttprojw, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "adapted_linear: lora (" + std::to_string(n) + ") is not the adapters' parameters");
  }
  const Tensor y = adapted_linear(x, weight, Tensor{}, params, &lora.adapters(), kLlamaAttprojw, 0);
  Tensor d_x, d_lora = wrong;
  EXPECT_THROW(
      custom_derivatives::adapted_linear_pullback(x, weight, Tensor{}, params, &lora.adapters(), kLlamaAttprojw, 0, y,
                                                  &d_x, nullptr, nullptr, &d_lora, nullptr),
      std::invalid_argument);
}

TEST(TensorLlama, LoraGradientHasNoWeightAdjoint) {
  lora_gradients::expect_no_weight_adjoint(nn::llama_tensor_gradient_source(), nn::llama_lora_tensor_gradient_source());
}

}  // namespace
