// The tensor ops under test, each on random (seeded) shapes with broadcasting and strided
// views: one table that the finite-difference tests and the PyTorch comparison both walk.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "adjoint/random.hpp"
#include "adjoint/tensor.hpp"

namespace tensor_test {

using adjoint::Tensor;

struct OpCase {
  std::string op;  // the name the PyTorch script dispatches on
  std::vector<Tensor> inputs;
  std::vector<int> ints;  // the op's integer arguments (dims, ids, ...), as the script reads them
  // The op; a float-valued op (cross_entropy) returns its value as a 0-dim tensor.
  std::function<Tensor(const std::vector<Tensor>&)> forward;
  // The op's pullback with one adjoint pointer per input (any may be nullptr).
  std::function<void(const std::vector<Tensor>&, Tensor d_result, const std::vector<Tensor*>& d)> pullback;
};

// Element i (row-major over the logical shape) of a possibly strided tensor.
float& element(const Tensor& t, std::size_t i);
// The logical elements of t in row-major order.
std::vector<float> values(const Tensor& t);
// A new arena tensor with uniform values in [lo, hi).
Tensor random_tensor(adjoint::Rng& rng, const std::vector<int>& shape, float lo = -1, float hi = 1);
// Every op at least once, most on several random shapes. Allocates in the current arena.
std::vector<OpCase> make_cases(adjoint::Rng& rng);

}  // namespace tensor_test
