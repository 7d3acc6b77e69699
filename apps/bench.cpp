// `adjoint bench`: times forward+backward and a full training step (with AdamW) of GPT-2 at
// several (B, T), against this machine's sgemm peak measured in the same run.
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"
#include "commands.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {
namespace {

template <typename Fn>
double median_ms(int warmup, int iters, Fn&& fn) {
  for (int i = 0; i < warmup; i++) fn();
  std::vector<double> times;
  for (int i = 0; i < iters; i++) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// GFLOP/s of a large square sgemm on all threads: the ceiling for the matmul-bound step.
double measure_sgemm_gflops() {
  const int n = 2048;
  std::vector<float> a((std::size_t)n * n, 0.5f), b((std::size_t)n * n, 0.25f), c((std::size_t)n * n);
  const double ms = median_ms(1, 5, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                c.data(), n);
  });
  return 2.0 * n * n * n / (ms * 1e6);
}

// Floating-point operations of one forward+backward: matmuls (backward is twice forward)
// and the causal attention's two batched products.
double step_flops(const GPT2Config& c, int B, int T) {
  const double N = double(B) * T, C = c.channels, L = c.num_layers;
  const double matmul = 2.0 * N * (L * (3 * C * C + C * C + 4 * C * C + 4 * C * C) + C * c.padded_vocab_size);
  const double attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
  return 3.0 * (matmul + attention);
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

struct BenchOptions {
  std::string model = "gpt2-124M", backward = "manual";
  int B = 0, T = 0, warmup = 2, iters = 7;
};

// The backward passes to compare, from "manual", "generated" or a comma-separated list.
std::vector<std::string> backward_names(const std::string& list) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    names.push_back(list.substr(start, comma - start));
    backward_from_name(names.back());  // rejects unknown names before any timing
    start = comma + 1;
  }
  return names;
}

void run_bench(const BenchOptions& o) {
  std::vector<std::pair<int, int>> shapes = {{1, 16}, {1, 32}, {2, 16}, {1, 64}, {4, 64}};
  if (o.B > 0 || o.T > 0) shapes = {{o.B > 0 ? o.B : 4, o.T > 0 ? o.T : 64}};
  const std::vector<std::string> backwards = backward_names(o.backward);
  const double peak = measure_sgemm_gflops();
  auto model = make_model(o.model, 1);
  const GPT2Config& c = model->config();
  int max_B = 0, max_T = 0;
  for (auto [B, T] : shapes) {
    max_B = std::max(max_B, B);
    max_T = std::max(max_T, T);
  }
  model->reserve_activations(max_B, max_T);
  AdamW optimizer(*model, AdamWConfig{});
  Rng rng(1);
  std::vector<int> tokens((std::size_t)max_B * max_T + 1);
  for (int& t : tokens) t = int(rng.next_u64() % c.vocab_size);

  fmt::print("adjoint bench: {} ({:.1f}M parameters), sgemm peak {:.0f} GFLOP/s, medians of {}\n", o.model,
             model->num_parameters() / 1e6, peak, o.iters);
  fmt::print("{:>3} {:>5} {:>9} {:>11} {:>11} {:>9} {:>9} {:>10} {:>10} {:>9} {:>8}\n", "B", "T", "backward",
             "fwdbwd ms", "step ms", "tok/s", "GFLOP/s", "floor ms", "arena MB", "tape B", "RSS MB");
  std::vector<std::string> json_lines;
  for (auto [B, T] : shapes) {
    const int* inputs = tokens.data();
    const int* targets = tokens.data() + 1;
    for (const std::string& name : backwards) {
      const Backward backward = backward_from_name(name);
      model->use_backward(backward);
      int step = 0;
      const double fwdbwd =
          median_ms(o.warmup, o.iters, [&] { model->forward_backward(inputs, targets, B, T, backward); });
      model->zero_grad();
      const double step_ms = median_ms(o.warmup, o.iters, [&] {
        model->forward_backward(inputs, targets, B, T, backward);
        const double norm = gradient_global_norm(model->grads_memory(), model->num_parameters());
        optimizer.update(*model, 1e-4f, clip_scale(norm, 1.0f), ++step);
      });
      const double flops = step_flops(c, B, T);
      const double gflops = flops / (fwdbwd * 1e6);
      const double tok_per_s = B * T / (step_ms / 1e3);
      // What this backward needs: parameters, gradients, AdamW moments, activations, and for
      // the generated one the activations' adjoints. Peak RSS is the process's, all runs so far.
      const double arena_mb =
          (4.0 * model->num_parameters() + model->activation_floats() +
           (backward == Backward::generated ? model->activation_adjoint_floats() : 0)) * sizeof(float) / 1048576.0;
      const std::size_t tape = backward == Backward::generated ? model->tape_bytes() : 0;
      const double rss = peak_rss_mb();
      fmt::print("{:>3} {:>5} {:>9} {:>11.1f} {:>11.1f} {:>9.0f} {:>9.1f} {:>10.1f} {:>10.0f} {:>9} {:>8.0f}\n", B, T,
                 name, fwdbwd, step_ms, tok_per_s, gflops, flops / (peak * 1e6), arena_mb, tape, rss);
      json_lines.push_back(nlohmann::json{{"model", o.model},
                                          {"backward", name},
                                          {"B", B},
                                          {"T", T},
                                          {"step_ms", step_ms},
                                          {"fwdbwd_ms", fwdbwd},
                                          {"tok_per_s", tok_per_s},
                                          {"gflops", gflops},
                                          {"sgemm_peak_gflops", peak},
                                          {"floor_ms", flops / (peak * 1e6)},
                                          {"arena_mb", arena_mb},
                                          {"tape_bytes", tape},
                                          {"peak_rss_mb", rss}}
                               .dump());
    }
  }
  for (const std::string& line : json_lines) fmt::print("{}\n", line);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time GPT-2 training steps");
  cmd->add_option("--model", o->model, "Config name or model file")->capture_default_str();
  cmd->add_option("-B,--batch", o->B, "Only this batch size")->check(CLI::PositiveNumber);
  cmd->add_option("-T,--seq-len", o->T, "Only this sequence length")->check(CLI::PositiveNumber);
  cmd->add_option("--backward", o->backward,
                  "Backward pass: manual (hand-written), generated (by adjc), or both as manual,generated")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed iterations first")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--iters", o->iters, "Timed iterations (the median is reported)")->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([o] { run_bench(*o); });
}

}  // namespace adjoint::cli
