// tensor_step: forward+backward of GPT-2 on the Tensor runtime (nn::gpt2_loss's ops, backward by
// their pullbacks called in reverse order) against the engine's (GPT2::forward + the
// hand-written GPT2::backward), same weights and batch, interleaved step by step in one process.
// Prints medians and the ratio tensor / engine, and whether the arena grew after warm-up.
//
//   tensor_step [MODEL [B T [REPS]]]     (defaults: gpt2-124M 4 64 7)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/nn.hpp"
#include "adjoint/random.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double milliseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int run(int argc, char** argv) {
  const std::string model_name = argc > 1 ? argv[1] : "gpt2-124M";
  const int B = argc > 3 ? std::atoi(argv[2]) : 4, T = argc > 3 ? std::atoi(argv[3]) : 64;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 7;
  const adjoint::GPT2Config config = adjoint::gpt2_config_from_name(model_name);
  if (B <= 0 || T <= 0 || T > config.max_seq_len || reps <= 0) {
    std::fprintf(stderr, "error: need B > 0, 0 < T <= %d, REPS > 0\n", config.max_seq_len);
    return 2;
  }
  adjoint::GPT2 engine(config);
  engine.init_random(1);
  adjoint::Rng rng(2);
  std::vector<int> tokens(std::size_t(B) * T + 1);
  for (int& t : tokens) t = int(rng.next_u64() % std::uint64_t(config.vocab_size));
  const int* inputs = tokens.data();
  const int* targets = tokens.data() + 1;

  adjoint::Arena arena;
  adjoint::ArenaScope scope(arena);
  const adjoint::nn::GPT2Views model(config, engine.params());
  adjoint::nn::GPT2Views grads(config, engine.grads());
  constexpr int kWarmup = 2;
  std::vector<double> engine_ms, tensor_ms;
  std::size_t blocks_after_warmup = 0;
  float engine_loss = 0, tensor_loss = 0;
  for (int i = 0; i < kWarmup + reps; i++) {
    const double e = milliseconds([&] {
      engine.zero_grad();
      engine_loss = engine.forward_backward(inputs, targets, B, T, adjoint::Backward::manual);
    });
    const double t = milliseconds([&] {
      arena.reset();
      engine.zero_grad();
      tensor_loss = adjoint::nn::gpt2_loss_backward_by_hand(model.model(), grads.model(), inputs, targets, B, T);
    });
    if (i < kWarmup) {
      blocks_after_warmup = arena.block_allocations();
      continue;
    }
    engine_ms.push_back(e);
    tensor_ms.push_back(t);
  }
  const double em = median(engine_ms), tm = median(tensor_ms);
  std::printf(
      "| model | B | T | engine fwd+bwd ms | tensor fwd+bwd ms | tensor / engine | arena MB | arena grew after warm-up "
      "| loss engine | loss tensor |\n");
  std::printf("|--|--:|--:|--:|--:|--:|--:|--|--:|--:|\n");
  std::printf("| %s | %d | %d | %.1f | %.1f | %.3f | %.0f | %s | %.6f | %.6f |\n", model_name.c_str(), B, T, em, tm,
              tm / em, arena.capacity_floats() * 4.0 / 1e6,
              arena.block_allocations() == blocks_after_warmup ? "no" : "YES", engine_loss, tensor_loss);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
