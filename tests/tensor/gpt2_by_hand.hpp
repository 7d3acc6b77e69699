// The tensor GPT-2's loss and its backward written by hand: the forward of nn::gpt2_loss with
// every intermediate kept, then each op's pullback in reverse order. The reference that the
// adjc-generated gradient of gpt2_loss will be compared with.
#pragma once
#include "adjoint/nn.hpp"

namespace tensor_test {

// Returns the loss; adds its gradient into the tensors of `grads` (a model-shaped gradient).
float gpt2_loss_backward_by_hand(const adjoint::nn::GPT2& model, adjoint::nn::GPT2& grads, const int* idx,
                                 const int* targets, int B, int T);

}  // namespace tensor_test
