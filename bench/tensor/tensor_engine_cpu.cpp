// The tensor engine's step against the arrays engine's (manual and generated backward) on one
// model, timed by the process's CPU time as well as the wall clock: on a machine shared by many
// processes the wall clock measures the scheduler, while CPU time (with OMP_WAIT_POLICY=passive,
// so idle threads do not spin) measures the work. The variants run in turn, step by step
// (interleaved), and the table gives medians and ratios to the arrays engine's manual backward.
//
//   tensor_engine_cpu MODEL B T [ITERS [VARIANTS]]     e.g. tensor_engine_cpu llama3-bench 4 64 7
//
// VARIANTS (default mgt) picks the rows: m arrays manual, g arrays generated, t tensor (one
// variant alone, e.g. under perf record). Ratios are to the first row.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/llama.hpp"
#include "adjoint/model.hpp"
#include "adjoint/nn_llama.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"

namespace {

using namespace adjoint;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double process_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MODEL B T [ITERS [VARIANTS]]\n", argv[0]);
    return 2;
  }
  try {
    const std::string name = argv[1];
    const int B = std::stoi(argv[2]), T = std::stoi(argv[3]), iters = argc > 4 ? std::stoi(argv[4]) : 5;
    const std::string chosen = argc > 5 ? argv[5] : "mgt";
    std::vector<int> variants;
    for (int k = 0; k < 3; k++)
      if (chosen.find("mgt"[k]) != std::string::npos) variants.push_back(k);
    if (variants.empty() || iters < 1) throw std::invalid_argument("VARIANTS must hold m, g or t, ITERS be >= 1");
    std::unique_ptr<Model> model = model_from_name(name, 1);
    model->reserve_activations(B, T);
    std::unique_ptr<nn::TensorEngine> tensor;
    if (auto* gpt2 = dynamic_cast<GPT2*>(model.get())) tensor = std::make_unique<nn::TensorGPT2>(*gpt2);
    if (auto* llama = dynamic_cast<adjoint::Llama*>(model.get())) tensor = std::make_unique<nn::TensorLlama>(*llama);
    AdamW optimizer(*model, AdamWConfig{});
    Rng rng(1);
    std::vector<int> tokens(std::size_t(B) * T + 1);
    for (int& t : tokens) t = int(rng.next_u64() % model->vocab_size());
    const char* names[] = {"arrays manual", "arrays generated", "tensor"};
    auto run = [&](int k) {
      if (k == 2) return tensor->forward_backward(tokens.data(), tokens.data() + 1, B, T);
      model->use_backward(k ? Backward::generated : Backward::manual);
      return model->forward_backward(tokens.data(), tokens.data() + 1, B, T);
    };
    // fwdbwd, then the whole step (AdamW's update too), each in CPU and wall time.
    std::vector<double> fwdbwd_cpu[3], step_cpu[3], fwdbwd_wall[3], step_wall[3];
    for (int i = 0; i < iters + 1; i++)  // the first round warms up
      for (int k : variants) {
        const double c0 = process_cpu_ms(), w0 = wall_ms();
        run(k);
        const double c1 = process_cpu_ms(), w1 = wall_ms();
        const double norm = gradient_global_norm(model->grads_memory(), model->num_parameters());
        optimizer.update(*model, 1e-5f, clip_scale(norm, 1.0f), i + 1);
        const double c2 = process_cpu_ms(), w2 = wall_ms();
        if (i == 0) continue;
        fwdbwd_cpu[k].push_back(c1 - c0), step_cpu[k].push_back(c2 - c0);
        fwdbwd_wall[k].push_back(w1 - w0), step_wall[k].push_back(w2 - w0);
      }
    std::printf("%s B=%d T=%d, medians of %d interleaved steps; ratios to the first row\n", name.c_str(), B, T, iters);
    std::printf("%-17s %12s %12s %7s %12s %12s %7s\n", "variant", "fwdbwd cpu", "step cpu", "ratio", "fwdbwd wall",
                "step wall", "ratio");
    const int first = variants.front();
    for (int k : variants)
      std::printf("%-17s %12.1f %12.1f %7.3f %12.1f %12.1f %7.3f\n", names[k], median(fwdbwd_cpu[k]), median(step_cpu[k]),
                  median(step_cpu[k]) / median(step_cpu[first]), median(fwdbwd_wall[k]), median(step_wall[k]),
                  median(step_wall[k]) / median(step_wall[first]));
    std::printf("arena floats: arrays %zu (+%zu scratch, manual; +%zu adjoints, generated), tensor %zu; "
                "parameters %zu\n",
                model->activation_floats(), model->backward_scratch_floats(), model->activation_adjoint_floats(),
                tensor->arena().capacity_floats(), model->num_parameters());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
