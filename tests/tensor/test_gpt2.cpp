// The tensor GPT-2 (nn.hpp) against the arrays engine on the same weights: the logits and loss of the
// forward, and the gradients of the pullbacks called by hand in reverse order and of the
// backward adjc generates from gpt2_loss.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/nn.hpp"
#include "gpt2_backward_by_hand.hpp"
#include "lora_gradients.hpp"
#include "../common/random_tokens.hpp"

namespace {

using namespace adjoint;

// Odd everywhere: V not a multiple of 128, 3 heads of 7 channels, T < maxT.
GPT2Config odd_tiny_config() { return gpt2_config(/*maxT*/ 11, /*V*/ 67, /*L*/ 3, /*NH*/ 3, /*C*/ 21); }

double relative_error(const float* a, const float* b, std::size_t n) {
  double err = 0, ref = 0;
  for (std::size_t i = 0; i < n; i++) {
    err += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    ref += double(b[i]) * b[i];
  }
  return std::sqrt(err) / std::max(std::sqrt(ref), 1e-30);
}

// A tensor backward: gpt2_loss and its gradient added into a model-shaped gradient.
using TensorBackward = float (*)(const nn::GPT2& model, nn::GPT2& grads, const int* idx, const int* targets, int B,
                                 int T);

// Every parameter tensor of `ours` against `reference` (arrays-engine layout): rel. err. (2-norm) < 1e-5 each.
void expect_same_gradients(const GPT2Config& config, const float* ours, const float* reference, const char* what) {
  const auto sizes = parameter_sizes(config);
  for (int i = 0; i < kNumParameterTensors; i++) {
    double norm = 0;
    for (std::size_t j = 0; j < sizes[i]; j++) norm += double(reference[j]) * reference[j];
    EXPECT_GT(norm, 0) << what << ", " << kParameterNames[i] << ": the reference is zero, the comparison is empty";
    EXPECT_LT(relative_error(ours, reference, sizes[i]), 1e-5) << what << ", " << kParameterNames[i];
    ours += sizes[i];
    reference += sizes[i];
  }
}

// On one batch and the same weights: the loss and the logits of the arrays engine's forward and the
// tensor model's, then every parameter tensor's gradient of each tensor backward (the
// hand-called pullbacks, adjc's generated gradient of gpt2_loss) against GPT2::backward's, and
// the two against each other (rel. err. < 1e-5 each). The logits are compared only when asked
// (one more forward of each).
void expect_tensor_backwards_same_as_engine(const GPT2Config& config, int B, int T, bool compare_logits) {
  GPT2 arrays_model(config);
  arrays_model.init_random(7);
  const std::vector<int> inputs = random_tokens(std::size_t(B) * T, config.vocab_size, 1);
  const std::vector<int> targets = random_tokens(std::size_t(B) * T, config.vocab_size, 2);
  Arena arena;
  ArenaScope scope(arena);
  const nn::GPT2Views model(config, arrays_model.params());

  if (compare_logits) {
    arrays_model.forward(inputs.data(), nullptr, B, T);
    const Tensor logits = nn::gpt2_logits(model.model(), inputs.data(), B, T);
    EXPECT_EQ(logits.numel(), std::size_t(B) * T * config.padded_vocab_size);
    EXPECT_LT(relative_error(logits.data, arrays_model.logits(), logits.numel()), 1e-6);
  }

  const float arrays_loss = arrays_model.forward(inputs.data(), targets.data(), B, T);
  EXPECT_GT(arrays_loss, 0.5f * std::log(float(config.vocab_size)));  // a real loss, not zeros
  EXPECT_NEAR(nn::gpt2_loss(model.model(), inputs.data(), targets.data(), B, T), arrays_loss, 1e-6 * arrays_loss);
  arrays_model.zero_grad();
  arrays_model.backward();

  // The tensor backward's gradient (arrays-engine layout), checked against the arrays engine's.
  auto tensor_gradient = [&](TensorBackward tensor_backward, const char* what) {
    std::vector<float> grads(arrays_model.num_parameters(), 0.0f);
    nn::GPT2Views gradient(config, parameter_views(grads.data(), config));
    const float loss = tensor_backward(model.model(), gradient.model(), inputs.data(), targets.data(), B, T);
    EXPECT_NEAR(loss, arrays_loss, 1e-6 * arrays_loss) << what;
    expect_same_gradients(config, grads.data(), arrays_model.grads_memory(), what);
    return grads;
  };
  const std::vector<float> by_hand = tensor_gradient(nn::gpt2_loss_backward_by_hand, "pullbacks by hand");
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  const std::vector<float> generated = tensor_gradient(nn::gpt2_loss_gradient, "adjc-generated");
  expect_same_gradients(config, generated.data(), by_hand.data(), "adjc-generated vs pullbacks by hand");
}

// Ids between the vocabulary size V and the padded Vp index rows of wte but are not tokens: the
// tensor engine rejects them as the arrays engine does, naming the id and its position.
TEST(TensorGPT2, RejectsTokenIdsBetweenVAndPaddedV) {
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  adjoint::GPT2 arrays_model(odd_tiny_config());
  arrays_model.init_random(1);
  nn::TensorGPT2 tensor(arrays_model);
  std::vector<int> inputs(4, 1), targets(4, 2);
  inputs[2] = 70;  // V = 67 < 70 < Vp = 128
  try {
    tensor.forward_backward(inputs.data(), targets.data(), 1, 4);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "input token id 70 at position 2 is out of range for vocabulary of 67");
  }
  inputs[2] = 1;
  targets[3] = 127;
  EXPECT_THROW(tensor.forward_backward(inputs.data(), targets.data(), 1, 4), std::invalid_argument);
}

TEST(TensorGPT2, SameAsEngineOnOddTinyConfig) { expect_tensor_backwards_same_as_engine(odd_tiny_config(), 3, 7, true); }

// LoRA on every GPT-2 target (qkv, attproj, fc, fcproj; each with its bias).
TEST(TensorGPT2, LoraAdapterGradientsSameAsEngine) {
  lora_gradients::expect_same_adapter_gradients<nn::TensorGPT2>(std::make_unique<adjoint::GPT2>(odd_tiny_config()),
                                                                {"qkv", "attproj", "fc", "fcproj"}, 3, 7);
}

TEST(TensorGPT2, LoraGradientHasNoWeightAdjoint) {
  lora_gradients::expect_no_weight_adjoint(nn::tensor_gradient_source(), nn::gpt2_lora_tensor_gradient_source());
}

TEST(TensorGPT2, SameAsEngineOnGpt2_124M) {
  expect_tensor_backwards_same_as_engine(gpt2_config_from_name("gpt2-124M"), 4, 64, false);
}

}  // namespace
