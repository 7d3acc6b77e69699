// cross_entropy's pullback writes the logits' gradient over the logits' own storage only when that
// is safe: inside a PrivateIntermediates scope, on logits no other op read. Compiled from adjc's
// output (tests/tensor/CMakeLists.txt), so the reverse sweeps below are generated as a model's are.
#include <adjoint/ad.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "adjoint/random.hpp"
#include "adjoint/tensor.hpp"

namespace adjoint::tensor_test {

// Logits that only cross_entropy reads.
inline float loss_of_logits(const Tensor& weight, const Tensor& x, const int* targets, int V) {
  return cross_entropy(linear(x, weight, Tensor{}), targets, V);
}

// Logits that the product reads before cross_entropy does: the product's pullback runs after
// cross_entropy's and reads them, so they must still hold the logits then.
inline float loss_of_logits_and_squares(const Tensor& weight, const Tensor& x, const int* targets, int V) {
  const Tensor logits = linear(x, weight, Tensor{});
  const float squares = cross_entropy(logits * logits, targets, V);
  return squares + cross_entropy(logits, targets, V);
}

}  // namespace adjoint::tensor_test

namespace {

using namespace adjoint;
using Loss = float (*)(const Tensor&, const Tensor&, const int*, int);

// The last Vp - V columns are padding. C > Vp, so that the reverse sweep (the logits' gradient
// and x's, N·C) holds more than the forward (cross_entropy's probabilities beside the logits).
constexpr int N = 6, C = 24, Vp = 16, V = 13;

struct Problem {
  std::vector<float> weight, x;
  std::vector<int> targets;
};

Problem random_problem() {
  Rng rng(5);
  Problem p;
  for (int i = 0; i < Vp * C; i++) p.weight.push_back(float(rng.uniform() * 2 - 1));
  for (int i = 0; i < N * C; i++) p.x.push_back(float(rng.uniform() * 2 - 1));
  for (int i = 0; i < N; i++) p.targets.push_back(int(rng.next_u64() % V));
  return p;
}

struct Gradient {
  std::vector<float> d_weight, d_x;
  std::size_t peak;  // arena floats
};

// The gradient of loss with respect to the weight and x by adjc's sweeps, in a fresh arena, with the
// sweeps' tensors declared private or not.
template <class Sweeps>
Gradient run(Problem& p, Sweeps gradient, bool private_intermediates) {
  Arena arena;
  ArenaScope scope(arena);
  Gradient r{std::vector<float>(p.weight.size(), 0.0f), std::vector<float>(p.x.size(), 0.0f), 0};
  const Tensor weight = tensor_view(p.weight.data(), {Vp, C}), x = tensor_view(p.x.data(), {N, C});
  // d_x starts empty: the sweeps allocate it in the arena (N·C floats), beside the logits' gradient.
  Tensor d_weight = tensor_view(r.d_weight.data(), {Vp, C}), d_x;
  if (private_intermediates) {
    const PrivateIntermediates intermediates;
    gradient.execute(weight, x, p.targets.data(), V, &d_weight, &d_x);
  } else {
    gradient.execute(weight, x, p.targets.data(), V, &d_weight, &d_x);
  }
  std::copy(d_x.data, d_x.data + d_x.numel(), r.d_x.begin());
  r.peak = arena.peak_floats();
  return r;
}

// Both gradients against float32 central differences of the loss, relative 2-norm error < 1e-3 each.
void expect_central_differences(Problem& p, Loss loss, const Gradient& g) {
  Arena arena;
  ArenaScope scope(arena);
  const Tensor weight = tensor_view(p.weight.data(), {Vp, C}), x = tensor_view(p.x.data(), {N, C});
  for (auto [values, grad] : {std::pair{&p.weight, &g.d_weight}, {&p.x, &g.d_x}}) {
    double err = 0, ref = 0;
    for (std::size_t i = 0; i < values->size(); i++) {
      const float saved = (*values)[i], h = 1e-2f;
      (*values)[i] = saved + h;
      const double up = loss(weight, x, p.targets.data(), V);
      (*values)[i] = saved - h;
      const double down = loss(weight, x, p.targets.data(), V);
      (*values)[i] = saved;
      arena.reset();
      const double fd = (up - down) / (2 * h);
      err += ((*grad)[i] - fd) * ((*grad)[i] - fd);
      ref += fd * fd;
    }
    EXPECT_LT(std::sqrt(err), 1e-3 * std::sqrt(ref) + 1e-6);
  }
}

// Run with and without a PrivateIntermediates scope: the scope saves one (N, Vp) array at the
// arena's peak, and the gradient is the same, bit for bit, and right.
template <class Sweeps>
void expect_one_array_less_and_same_gradient(Sweeps gradient, Loss loss) {
  Problem p = random_problem();
  const Gradient shared = run(p, gradient, false), in_place = run(p, gradient, true);
  EXPECT_EQ(shared.peak - in_place.peak, std::size_t(N) * Vp);
  EXPECT_EQ(in_place.d_weight, shared.d_weight);
  EXPECT_EQ(in_place.d_x, shared.d_x);
  expect_central_differences(p, loss, in_place);
}

// Alone with cross_entropy, the logits' storage becomes their gradient.
TEST(TensorArena, CrossEntropyGradientTakesTheLogitsStorageWhenOnlyItReadsThem) {
  expect_one_array_less_and_same_gradient(adjoint::gradient(tensor_test::loss_of_logits, "weight, x"),
                                          tensor_test::loss_of_logits);
}

// Read by another op too, the logits keep their storage and the gradient is right; the squares,
// which only cross_entropy reads, give theirs: one (N, Vp) array less at the peak, not two.
TEST(TensorArena, CrossEntropyGradientKeepsLogitsAnotherOpRead) {
  expect_one_array_less_and_same_gradient(adjoint::gradient(tensor_test::loss_of_logits_and_squares, "weight, x"),
                                          tensor_test::loss_of_logits_and_squares);
}

// By hand: the pullback takes the logits' storage only inside a PrivateIntermediates scope, and
// an op that reads them afterwards fails on one line instead of reading the gradient.
TEST(TensorArena, LogitsGivenOverToTheirGradientCannotBeReadAgain) {
  Problem p = random_problem();
  Arena arena;
  ArenaScope scope(arena);
  const Tensor weight = tensor_view(p.weight.data(), {Vp, C}), x = tensor_view(p.x.data(), {N, C});
  {
    const Tensor logits = linear(x, weight, Tensor{});
    cross_entropy(logits, p.targets.data(), V);
    Tensor d_logits;
    custom_derivatives::cross_entropy_pullback(logits, p.targets.data(), V, 1.0f, &d_logits);
    EXPECT_NE(d_logits.data, logits.data);  // no scope: the caller may read the logits again
    EXPECT_NO_THROW(cross_entropy(logits, p.targets.data(), V));
  }
  const PrivateIntermediates intermediates;
  const Tensor logits = linear(x, weight, Tensor{});
  cross_entropy(logits, p.targets.data(), V);
  Tensor d_logits;
  custom_derivatives::cross_entropy_pullback(logits, p.targets.data(), V, 1.0f, &d_logits);
  EXPECT_EQ(d_logits.data, logits.data);
  try {
    sum(logits);
    ADD_FAILURE() << "read logits whose storage holds their gradient";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "sum: reads a tensor whose storage cross_entropy's pullback gave over to its gradient");
  }
}

}  // namespace
