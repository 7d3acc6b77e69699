// Clipping's global norm taken layer by layer during the backward, and OpenMP's waits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "adjoint/data_parallel_adamw.hpp"
#include "adjoint/distributed.hpp"
#include "adjoint/gpt2.hpp"
#include "adjoint/optimizer.hpp"
#include "../../apps/thread_waits.hpp"
#include "../common/command_test.hpp"
#include "../common/random_tokens.hpp"

namespace {

using adjoint::GPT2;

// Σ x² in long double, in order: the reference the sums in double are held to.
long double reference_squares(const std::vector<float>& x) {
  long double sum = 0;
  for (float v : x) sum += (long double)v * v;
  return sum;
}

TEST(Optimizer, SumOfSquaresOverRangesMatchesTheWholeArray) {
  std::vector<float> x(100003);
  for (std::size_t i = 0; i < x.size(); i++) x[i] = std::sin(0.61f * float(i)) * (1.0f + float(i % 7));
  const std::vector<adjoint::FloatRange> ranges = {
      {x.data(), 1}, {x.data() + 1, 0}, {x.data() + 1, 4096}, {x.data() + 4097, 50000}, {x.data() + 54097, 45906}};
  const double whole = adjoint::gradient_global_norm(x.data(), x.size());
  const double pieces = adjoint::sum_of_squares(ranges);
  const long double reference = reference_squares(x);
  // Double sums of ~1e5 squares in another order: far inside 1e-13 relative.
  EXPECT_NEAR(double(std::sqrt(reference)), whole, 1e-13 * whole);
  EXPECT_NEAR(double(reference), pieces, 1e-13 * pieces);
  EXPECT_EQ(adjoint::sum_of_squares({}), 0.0);
}

// The norm DataParallelAdamW returns after an armed hand-written backward was taken as each layer
// completed: a later change to a layer's gradients does not show in it, and it equals the norm
// the unarmed path takes after the backward bit for bit (the same parts in the same order), and
// the whole array's within the bound of a changed summation order.
TEST(Optimizer, NormTakenDuringTheBackwardIsTheNormAfterIt) {
  GPT2 model(adjoint::gpt2_config(/*maxT*/ 16, /*V*/ 67, /*L*/ 3, /*NH*/ 3, /*C*/ 24));
  model.init_random(5);
  const std::vector<int> tokens = random_tokens(2 * 8 + 1, 67, 3);
  adjoint::DataParallelAdamW optimizer(model, {}, adjoint::Communicator::world(), 0);
  const std::size_t n = model.num_parameters();
  for (adjoint::Backward backward : {adjoint::Backward::manual, adjoint::Backward::generated}) {
    if (!model.has_backward(backward)) continue;
    model.use_backward(backward);
    model.zero_grad();
    optimizer.next_backward_is_last();
    model.forward_backward(tokens.data(), tokens.data() + 1, 2, 8);
    const std::vector<float> grads(model.grads_memory(), model.grads_memory() + n);
    const double whole = adjoint::gradient_global_norm(grads.data(), n);
    // Layer 1's slice of ln1w (tensor 2, after wte and wpe) changed after the backward.
    const auto tensors = model.parameter_tensors();
    const std::size_t layer1_ln1w = tensors[0].size + tensors[1].size + tensors[2].size / 3;
    model.grads_memory()[layer1_ln1w] += 100.0f;
    const double armed = optimizer.reduce_gradients();
    std::memcpy(model.grads_memory(), grads.data(), n * sizeof(float));
    const double after = optimizer.reduce_gradients();
    EXPECT_NEAR(after, whole, 1e-12 * whole);
    if (backward == adjoint::Backward::manual) {
      EXPECT_EQ(armed, after);  // taken in the backward: the change did not show
    } else {
      EXPECT_GT(armed, after + 10.0);  // no hooks: taken after, with the change
    }
  }
}

TEST(ThreadWaits, ShortSpinUnlessTheUserChose) {
  const char* none[] = {"PATH=/bin", "OMP_NUM_THREADS=2", nullptr};
  EXPECT_EQ(adjoint::cli::thread_wait_settings(none),
            std::vector<std::string>{"GOMP_SPINCOUNT=" + std::to_string(adjoint::cli::kThreadWaitSpins)});
  const char* policy[] = {"OMP_WAIT_POLICY=active", nullptr};
  EXPECT_TRUE(adjoint::cli::thread_wait_settings(policy).empty());
  const char* spins[] = {"GOMP_SPINCOUNT=5", nullptr};
  EXPECT_TRUE(adjoint::cli::thread_wait_settings(spins).empty());
  const char* prefix_only[] = {"GOMP_SPINCOUNTS=5", "OMP_WAIT_POLICYX=1", nullptr};
  EXPECT_EQ(adjoint::cli::thread_wait_settings(prefix_only).size(), 1u);
}

// The program runs with the short spin when the environment has none, and with the user's when set.
TEST(ThreadWaits, ProgramRunsWithThem) {
  command_test::TempDir dir;
  const std::string bench = command_test::adjoint_bin() + " bench --model d1 -B 1 -T 1 --iters 1 --warmup 0";
  const auto defaults = command_test::run_output("env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY " + bench, dir);
  ASSERT_EQ(defaults.status, 0) << defaults.err;
  EXPECT_NE(defaults.out.find("waits: GOMP_SPINCOUNT=" + std::to_string(adjoint::cli::kThreadWaitSpins)),
            std::string::npos)
      << defaults.out;
  const auto chosen = command_test::run_output("env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=77 " + bench, dir);
  ASSERT_EQ(chosen.status, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("waits: GOMP_SPINCOUNT=77\n"), std::string::npos) << chosen.out;
}

}  // namespace
