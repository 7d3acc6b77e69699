// The arena, adjoint accumulation, views and the one-line errors on bad input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/nn.hpp"
#include "gpt2_backward_by_hand.hpp"
#include "adjoint/nn_llama.hpp"
#include "adjoint/random.hpp"
#include "adjoint/tensor.hpp"
#include "op_cases.hpp"

// Counts this binary's C++ heap allocations while counting_allocations is set: a warm tensor
// step must make none (the arena's blocks come from aligned_alloc, counted separately by
// Arena::block_allocations).
namespace {
bool counting_allocations = false;
std::size_t allocations = 0;
}  // namespace

// GCC 12 flags free() in a replaced operator delete as mismatched with operator new: it is not,
// both are replaced together here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (counting_allocations) allocations++;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

using namespace adjoint;
using tensor_test::values;

TEST(TensorArena, AlignsGrowsAndSettlesIntoOneBlock) {
  Arena arena(64);
  const std::size_t before = arena.block_allocations();
  for (int step = 0; step < 3; step++) {
    arena.reset();
    for (std::size_t n : {10, 100, 1000, 5}) {
      const float* p = arena.allocate(n);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
    }
    if (step == 0) {
      EXPECT_GT(arena.block_allocations(), before);  // the first step had to grow
    }
  }
  // reset after step 0 merged the blocks; steps 1 and 2 allocated nothing new.
  const std::size_t settled = arena.block_allocations();
  arena.reset();
  for (std::size_t n : {10, 100, 1000, 5}) arena.allocate(n);
  EXPECT_EQ(arena.block_allocations(), settled);
  EXPECT_GE(arena.capacity_floats(), arena.used_floats());
}

TEST(TensorArena, ReleaseFreesTemporariesAndResetSizesByThePeak) {
  Arena arena(64);
  arena.allocate(16);
  const Arena::Mark mark = arena.mark();
  const float* temporary = arena.allocate(32);
  arena.allocate(1000);  // spills into a second block
  EXPECT_EQ(arena.peak_floats(), 16u + 32u + 1008u);
  arena.release(mark);
  EXPECT_EQ(arena.used_floats(), 16u);
  EXPECT_EQ(arena.allocate(32), temporary);  // the released space is reused
  arena.reset();
  EXPECT_EQ(arena.capacity_floats(), 16u + 32u + 1008u);  // one block of the peak, not of the end
}

TEST(TensorArena, ScopesNestAndOpsNeedOne) {
  EXPECT_THROW(zeros({2}), std::logic_error);
  Arena outer, inner;
  ArenaScope a(outer);
  EXPECT_EQ(&current_arena(), &outer);
  {
    ArenaScope b(inner);
    EXPECT_EQ(&current_arena(), &inner);
  }
  EXPECT_EQ(&current_arena(), &outer);
}

// A training step of the tensor GPT-2 (forward and backward) allocates no new arena block and
// nothing on the heap once warmed up.
TEST(TensorArena, WarmGpt2StepDoesNotGrow) {
  const GPT2Config c = gpt2_config(/*maxT*/ 8, /*V*/ 50, /*L*/ 2, /*NH*/ 2, /*C*/ 16);
  GPT2 arrays_model(c);
  arrays_model.init_random(3);
  std::vector<int> tokens(2 * 8 + 1);
  for (std::size_t i = 0; i < tokens.size(); i++) tokens[i] = int(i * 7 % 50);
  const nn::GPT2Views model(c, arrays_model.params());
  nn::GPT2Views grads(c, arrays_model.grads());
  // The pullbacks called by hand, and adjc's generated gradient (whose tape, too, is warm by then).
  using Backward = float (*)(const nn::GPT2&, nn::GPT2&, const int*, const int*, int, int);
  std::vector<std::pair<const char*, Backward>> backwards = {{"by hand", nn::gpt2_loss_backward_by_hand}};
  if (nn::have_tensor_gradient()) backwards.push_back({"adjc-generated", nn::gpt2_loss_gradient});
  for (const auto& [what, backward] : backwards) {
    Arena arena(16);
    ArenaScope scope(arena);
    std::size_t blocks = 0;
    allocations = 0;
    for (int step = 0; step < 3; step++) {
      arena.reset();
      counting_allocations = step == 2;
      backward(model.model(), grads.model(), tokens.data(), tokens.data() + 1, 2, 8);
      counting_allocations = false;
      if (step == 1) blocks = arena.block_allocations();
    }
    EXPECT_EQ(arena.block_allocations(), blocks) << what;
    EXPECT_EQ(allocations, 0u) << what;
  }
}

// The same for a step of the tensor engine's Llama (TensorLlama: its arena, RoPE table, and the
// tapes of adjc's kernel gradients that rmsnorm, rotary and swiglu's pullbacks run).
TEST(TensorArena, WarmLlamaStepDoesNotGrow) {
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  LlamaConfig c;
  c.max_seq_len = 8, c.vocab_size = 50, c.num_layers = 2, c.num_heads = 4, c.num_kv_heads = 2, c.channels = 16;
  c.multiple_of = 16, c.use_scaled_rope = true, c.rope_original_context = 4;
  adjoint::Llama arrays_model(c);
  arrays_model.init_random(3);
  std::vector<int> tokens(2 * 8 + 1);
  for (std::size_t i = 0; i < tokens.size(); i++) tokens[i] = int(i * 7 % 50);
  nn::TensorLlama tensor(arrays_model);
  std::size_t blocks = 0;
  allocations = 0;
  for (int step = 0; step < 3; step++) {
    counting_allocations = step == 2;
    tensor.forward_backward(tokens.data(), tokens.data() + 1, 2, 8);
    counting_allocations = false;
    if (step == 1) blocks = tensor.arena().block_allocations();
  }
  EXPECT_EQ(tensor.arena().block_allocations(), blocks);
  EXPECT_EQ(allocations, 0u);
}

// The arena's peak in a Llama step whose (B·T, V) logits outweigh the layers: the logits' gradient
// takes the logits' storage (cross_entropy's pullback inside the sweeps' PrivateIntermediates), so
// the peak holds one (B·T, V) array, not two.
TEST(TensorArena, LlamaStepHoldsTheLogitsOnce) {
  if (!nn::have_tensor_gradient()) GTEST_SKIP() << "this build has no adjc-generated tensor gradient";
  LlamaConfig c;
  c.max_seq_len = 16, c.vocab_size = 4096, c.num_layers = 2, c.num_heads = 4, c.num_kv_heads = 2, c.channels = 32;
  c.multiple_of = 32;
  adjoint::Llama arrays_model(c);
  arrays_model.init_random(3);
  const int B = 2, T = 16;
  std::vector<int> tokens(B * T + 1);
  for (std::size_t i = 0; i < tokens.size(); i++) tokens[i] = int(i * 977 % 4096);
  nn::TensorLlama tensor(arrays_model);
  tensor.forward_backward(tokens.data(), tokens.data() + 1, B, T);
  const std::size_t logits = std::size_t(B) * T * c.vocab_size;
  EXPECT_GE(tensor.arena().peak_floats(), logits);
  EXPECT_LT(tensor.arena().peak_floats(), 2 * logits);
}

class TensorRuntime : public ::testing::Test {
 protected:
  Arena arena_;
  ArenaScope scope_{arena_};
};

TEST_F(TensorRuntime, AccumulateAdjointMaterialisesCopiesAndReduces) {
  Tensor into;
  accumulate_adjoint(into, Tensor{});
  EXPECT_TRUE(into.empty());
  Tensor from = zeros({2, 3});
  for (int i = 0; i < 6; i++) from.data[i] = float(i);
  accumulate_adjoint(into, from);
  ASSERT_FALSE(into.empty());
  EXPECT_NE(into.data, from.data);  // adjoints never share storage
  accumulate_adjoint(into, from);
  EXPECT_EQ(values(into), (std::vector<float>{0, 2, 4, 6, 8, 10}));
  // A broadcast operand's adjoint: summed over the broadcast rows.
  Tensor row = zeros({3});
  accumulate_adjoint(row, from);
  EXPECT_EQ(values(row), (std::vector<float>{3, 5, 7}));
}

TEST_F(TensorRuntime, ViewsShareStorage) {
  Tensor x = zeros({2, 3, 4});
  for (int i = 0; i < 24; i++) x.data[i] = float(i);
  const Tensor t = x.transpose(0, 2);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(tensor_test::element(t, 1), 12.0f);  // t[0][0][1] = x[1][0][0]
  const Tensor s = x.slice(2, 1, 3);
  EXPECT_EQ(s.data, x.data + 1);
  EXPECT_EQ(x.view(-1, 4).shape[0], 6);
  EXPECT_EQ(t.reshape(-1).numel(), 24u);
  EXPECT_EQ(values(t.contiguous()), values(t));
}

TEST_F(TensorRuntime, BadInputIsAOneLineError) {
  const Tensor x = zeros({2, 3});
  const Tensor bad = zeros({4});
  EXPECT_THROW(x + bad, std::invalid_argument);
  EXPECT_THROW(x.transpose(0, 1).view(6), std::invalid_argument);
  EXPECT_THROW(x.view(4, -1), std::invalid_argument);
  EXPECT_THROW(x.slice(1, 2, 5), std::invalid_argument);
  EXPECT_THROW(matmul(x, x), std::invalid_argument);
  const int ids[2] = {0, 3};
  EXPECT_THROW(embedding(x, ids, 1, 2), std::invalid_argument);
  EXPECT_THROW(cross_entropy(x, ids, 3), std::invalid_argument);
  try {
    (void)(x + bad);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "broadcast: shapes (2,3) and (4) do not broadcast");
  }
}

}  // namespace
