// The tensor engine's LoRA adapter gradients against the arrays engine's, for either model
// (test_llama.cpp, test_gpt2.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "adjoint/lora.hpp"
#include "adjoint/nn.hpp"
#include "adjoint/random.hpp"
#include "../common/random_tokens.hpp"

namespace lora_gradients {

// Relative error (2-norm) of a against b.
inline double relative_error(const float* a, const float* b, std::size_t n) {
  double err = 0, ref = 0;
  for (std::size_t i = 0; i < n; i++) {
    err += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    ref += double(b[i]) * b[i];
  }
  return std::sqrt(err) / std::max(std::sqrt(ref), 1e-30);
}

// LoRA of rank 3 on `targets` over `base` (given random weights here): the tensor engine's adapter
// gradients (Engine over the base, the loss differentiated for "lora") against both of the arrays
// engine's backward passes, rel. err. < 1e-5 per adapter tensor, and the base bit-identical (it is
// only read) and without gradients.
template <class Engine, class Base>
void expect_same_adapter_gradients(std::unique_ptr<Base> base, const std::vector<std::string>& targets, int B, int T) {
  using namespace adjoint;
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  base->init_random(7);
  const std::vector<float> base_before(base->params_memory(), base->params_memory() + base->num_parameters());
  const int V = base->vocab_size();
  LoraModel lora(std::move(base), {3, 5.0f, targets}, 11);
  // B starts at zero, which would leave every A's gradient zero: random adapters (within ±0.1) instead.
  Rng rng(3);
  for (std::size_t i = 0; i < lora.num_parameters(); i++) lora.params_memory()[i] = float(0.2 * (rng.uniform() - 0.5));
  const std::vector<int> inputs = random_tokens(std::size_t(B) * T, V, 1);
  const std::vector<int> targets_ = random_tokens(std::size_t(B) * T, V, 2);
  std::vector<std::vector<float>> arrays_grads;
  float arrays_loss = 0;
  for (Backward backward : {Backward::manual, Backward::generated}) {
    if (!lora.has_backward(backward)) continue;
    lora.zero_grad();
    lora.use_backward(backward);
    arrays_loss = lora.forward_backward(inputs.data(), targets_.data(), B, T);
    arrays_grads.emplace_back(lora.grads_memory(), lora.grads_memory() + lora.num_parameters());
  }
  auto& arrays_model = static_cast<Base&>(lora.base());
  Engine tensor(arrays_model);
  lora.zero_grad();
  const float loss = tensor.forward_backward(inputs.data(), targets_.data(), B, T);
  EXPECT_NEAR(loss, arrays_loss, 1e-6 * arrays_loss);
  for (const auto& reference : arrays_grads) {
    std::size_t offset = 0;
    for (const ParameterTensor& t : lora.parameter_tensors()) {
      double norm = 0;
      for (std::size_t j = 0; j < t.size; j++) norm += double(reference[offset + j]) * reference[offset + j];
      EXPECT_GT(norm, 0) << t.name << ": the reference is zero";
      EXPECT_LT(relative_error(lora.grads_memory() + offset, reference.data() + offset, t.size), 1e-5) << t.name;
      offset += t.size;
    }
    EXPECT_EQ(offset, lora.num_parameters());
  }
  EXPECT_EQ(arrays_model.grads_memory(), nullptr);
  EXPECT_EQ(std::memcmp(arrays_model.params_memory(), base_before.data(), base_before.size() * sizeof(float)), 0);
}

// The LoRA request leaves the base's weights inactive: the generated reverse sweep never names
// the model's adjoint (the full request's does), so no weight-gradient product or memory exists.
inline void expect_no_weight_adjoint(const std::string& full, const std::string& lora) {
  if (!adjoint::nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  EXPECT_NE(full.find("(*_d_model)."), std::string::npos);  // the pattern is the full one's
  EXPECT_NE(lora.find("adapted_linear_pullback"), std::string::npos);
  EXPECT_EQ(lora.find("(*_d_model)"), std::string::npos);
}

}  // namespace lora_gradients
