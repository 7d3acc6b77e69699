// The tests' reference for the tensor GPT-2's generated gradient.
#pragma once
#include "adjoint/nn.hpp"

namespace adjoint::nn {

// gpt2_loss, and its gradient ADDED into the tensors of `grads` (a model-shaped gradient, e.g.
// GPT2Views over the engine's gradient arena), by calling the ops' pullbacks by hand in reverse
// order: the reference for the gradient adjc generates from gpt2_loss.
float gpt2_loss_backward_by_hand(const GPT2& model, GPT2& grads, const int* idx, const int* targets, int B, int T);

}  // namespace adjoint::nn
