// Every op's pullback against central finite differences, and the pullback contract (adds,
// accepts nullptr, ignores an empty d_result).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "op_cases.hpp"

namespace {

using namespace tensor_test;
using adjoint::Arena;
using adjoint::ArenaScope;
using adjoint::Rng;
using adjoint::Tensor;

std::string describe(const OpCase& c) {
  std::string s = c.op;
  for (const Tensor& t : c.inputs) {
    s += " (";
    for (int d = 0; d < t.ndim; d++) s += std::to_string(t.shape[d]) + (d + 1 < t.ndim ? "," : "");
    s += t.is_contiguous() ? ")" : ")ᵀ";
  }
  return s;
}

// Σ r·op(inputs) in double.
double projected(const OpCase& c, const Tensor& r) {
  const std::vector<float> y = values(c.forward(c.inputs));
  double total = 0;
  for (std::size_t i = 0; i < y.size(); i++) total += double(r.data[i]) * y[i];
  return total;
}

std::vector<float> gradient_or_zeros(const Tensor& d, const Tensor& like) {
  return d.empty() ? std::vector<float>(like.numel(), 0.0f) : values(d);
}

// The adjoints of every input after one pullback of d_result, starting from `initial` (empty
// tensors or not).
std::vector<Tensor> run_pullback(const OpCase& c, const Tensor& d_result, std::vector<Tensor> initial) {
  std::vector<Tensor*> pointers;
  for (Tensor& t : initial) pointers.push_back(&t);
  c.pullback(c.inputs, d_result, pointers);
  return initial;
}

class TensorOps : public ::testing::Test {
 protected:
  Arena arena_;
  ArenaScope scope_{arena_};
  Rng rng_{20261122};
};

// float32 central differences with step h = 1e-2 on inputs of order 1: truncation error
// ~h²·f''' ≈ 1e-4 and rounding ≈ 1e-7·|L|·sqrt(n)/h ≈ 1e-4, so the whole gradient of each input
// must agree to 5e-3 relative in the 2-norm (a wrong term, sign or index is off by O(1)).
TEST_F(TensorOps, PullbacksMatchCentralDifferences) {
  constexpr float kStep = 1e-2f;
  constexpr double kRelTol = 5e-3;
  for (const OpCase& c : make_cases(rng_)) {
    SCOPED_TRACE(describe(c));
    const Tensor y = c.forward(c.inputs);
    const Tensor r = random_tensor(rng_, std::vector<int>(y.shape, y.shape + y.ndim));
    const std::vector<Tensor> grads = run_pullback(c, r, std::vector<Tensor>(c.inputs.size()));
    for (std::size_t i = 0; i < c.inputs.size(); i++) {
      SCOPED_TRACE("input " + std::to_string(i));
      const std::vector<float> analytic = gradient_or_zeros(grads[i], c.inputs[i]);
      double err2 = 0, ref2 = 0;
      for (std::size_t j = 0; j < c.inputs[i].numel(); j++) {
        float& x = element(c.inputs[i], j);
        const float saved = x;
        x = saved + kStep;
        const float up = x;
        const double plus = projected(c, r);
        x = saved - kStep;
        const float down = x;
        const double minus = projected(c, r);
        x = saved;
        const double fd = (plus - minus) / (double(up) - double(down));
        err2 += (analytic[j] - fd) * (analytic[j] - fd);
        ref2 += fd * fd;
      }
      EXPECT_LE(std::sqrt(err2), kRelTol * std::sqrt(ref2) + 1e-5 * std::sqrt(double(analytic.size())))
          << "‖fd‖ = " << std::sqrt(ref2);
    }
  }
}

TEST_F(TensorOps, PullbacksAddIntoExistingAdjointsAndAcceptNull) {
  for (const OpCase& c : make_cases(rng_)) {
    SCOPED_TRACE(describe(c));
    const Tensor y = c.forward(c.inputs);
    const Tensor r = random_tensor(rng_, std::vector<int>(y.shape, y.shape + y.ndim));
    const std::vector<Tensor> fresh = run_pullback(c, r, std::vector<Tensor>(c.inputs.size()));
    std::vector<Tensor> initial;
    for (const Tensor& x : c.inputs)
      initial.push_back(random_tensor(rng_, std::vector<int>(x.shape, x.shape + x.ndim)));
    std::vector<std::vector<float>> before;
    for (const Tensor& t : initial) before.push_back(values(t));
    const std::vector<Tensor> added = run_pullback(c, r, initial);
    for (std::size_t i = 0; i < c.inputs.size(); i++) {
      EXPECT_EQ(added[i].data, initial[i].data) << "input " << i << ": the adjoint was replaced, not added to";
      const std::vector<float> g = gradient_or_zeros(fresh[i], c.inputs[i]), after = values(added[i]);
      for (std::size_t j = 0; j < g.size(); j++)
        ASSERT_NEAR(after[j] - before[i][j], g[j], 1e-5f * (1 + std::fabs(g[j]))) << "input " << i << " element " << j;
    }
    c.pullback(c.inputs, r, std::vector<Tensor*>(c.inputs.size(), nullptr));  // must not crash
  }
}

TEST_F(TensorOps, PullbacksIgnoreAnEmptyResultAdjoint) {
  for (const OpCase& c : make_cases(rng_)) {
    if (c.op == "cross_entropy") continue;  // float-valued: its d_result is never empty
    SCOPED_TRACE(describe(c));
    const std::vector<Tensor> d = run_pullback(c, Tensor{}, std::vector<Tensor>(c.inputs.size()));
    for (const Tensor& t : d) EXPECT_TRUE(t.empty());
  }
}

}  // namespace
