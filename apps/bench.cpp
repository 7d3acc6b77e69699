// `adjoint bench`: times forward+backward and a full training step (with AdamW) of a model at
// several (B, T), or with train's --lora-* flags the LoRA step on a frozen base, for each engine
// and backward asked for (rows side by side, interleaved per shape), against the floor of a step
// on this machine: the larger of its FLOPs at the GEMM peak and its compulsory memory traffic at
// the memory bandwidth, both measured in the same run, for the step and each of its parts
// (step_floor.hpp).
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "adjoint/data_parallel_adamw.hpp"
#include "adjoint/distributed.hpp"
#include "adjoint/gemm.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"
#include "commands.hpp"
#include "engine.hpp"
#include "flags.hpp"
#include "lora.hpp"
#include "model_spec.hpp"
#include "step_floor.hpp"
#include "thread_waits.hpp"

namespace adjoint::cli {
namespace {

// Whether timings read the process's CPU time instead of the wall clock (--clock cpu): with one
// thread, a kernel's own time whatever other jobs on the machine do to the wall clock.
bool cpu_clock = false;

double now_ms() {
  if (!cpu_clock)
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * double(ts.tv_sec) + 1e-6 * double(ts.tv_nsec);
}

// Median milliseconds of fn(k) for each k < count, the k interleaved iteration by iteration
// (k = 0, 1, ..., 0, 1, ...) so that changes in the machine's load hit all of them alike.
template <typename Fn>
std::vector<double> interleaved_median_ms(std::size_t count, int warmup, int iters, Fn&& fn) {
  for (int i = 0; i < warmup; i++)
    for (std::size_t k = 0; k < count; k++) fn(k);
  std::vector<std::vector<double>> times(count);
  for (int i = 0; i < iters; i++) {
    for (std::size_t k = 0; k < count; k++) {
      const double start = now_ms();
      fn(k);
      times[k].push_back(now_ms() - start);
    }
  }
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

template <typename Fn>
double median_ms(int warmup, int iters, Fn&& fn) {
  return interleaved_median_ms(1, warmup, iters, [&](std::size_t) { fn(); })[0];
}

// Fastest milliseconds of fn over iters runs after warmup. The probes below measure what the
// machine can do, a ceiling: other jobs on a shared host only ever slow a run, so the fastest run
// is the best estimate (a median moved 2x between two runs minutes apart on a quiet guest).
template <typename Fn>
double fastest_ms(int warmup, int iters, Fn&& fn) {
  for (int i = 0; i < warmup; i++) fn();
  double best = 0;
  for (int i = 0; i < iters; i++) {
    const double start = now_ms();
    fn();
    const double ms = now_ms() - start;
    if (i == 0 || ms < best) best = ms;
  }
  return best;
}

// GFLOP/s of a large square sgemm on all threads, with the kernel every matmul uses: the
// ceiling for the matmul-bound part of a step.
double measure_sgemm_gflops() {
  const int n = 2048;
  std::vector<float> a((std::size_t)n * n, 0.5f), b((std::size_t)n * n, 0.25f), c((std::size_t)n * n);
  const double ms =
      fastest_ms(1, 7, [&] { gemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); });
  return 2.0 * n * n * n / (ms * 1e6);
}

// GB/s of a streaming loop on all threads, counting bytes read and written: a = s a + b over
// arrays far larger than the caches, updated in place as AdamW updates its moments (a store to a
// line that was not read first would cost a hidden read and understate the bandwidth).
double measure_memory_gbps() {
  const std::size_t n = std::size_t(64) << 20;  // 2 x 256 MB
  std::vector<float> a(n, 1.0f), b(n, 2.0f);
  const double ms = fastest_ms(1, 9, [&] {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; i++) a[i] = 0.5f * a[i] + b[i];
  });
  return 3.0 * n * sizeof(float) / (ms * 1e6);
}

// The process's peak resident memory since the last reset_peak_rss (VmHWM), or since it started
// (getrusage) where /proc does not tell.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // "VmHWM:  1234 kB"
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

// Starts the peak over (Linux's clear_refs 5), so that the probes' buffers (512 MB), freed before
// the model is built, do not count as the step's memory. False where the kernel refuses.
bool reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  return static_cast<bool>(clear_refs << "5" << std::flush);
}

struct BenchOptions {
  // The same backward as `adjoint train`'s default.
  std::string model = "gpt2-124M", engine = "arrays", backward = have_generated_backward() ? "generated" : "manual";
  bool backward_given = false;
  int B = 0, T = 0, warmup = 2, iters = 7;
  int zero = 0;  // ZeRO stage of the step's AdamW (under mpirun a data-parallel step)
  std::string clock = "wall";
  LoraFlags lora;  // given: the step of `adjoint train` with the same flags, adapters on a frozen base
};

// The items of a comma-separated list, each checked by check (which throws) before any timing.
template <typename Check>
std::vector<std::string> list_items(const std::string& list, Check&& check) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    items.push_back(list.substr(start, comma - start));
    check(items.back());
    start = comma + 1;
  }
  return items;
}

// One row of the table: an engine, and for the arrays engine its backward pass.
struct Variant {
  Engine engine;
  Backward backward;
  std::string engine_name, backward_name;
};

std::vector<Variant> bench_variants(const BenchOptions& o) {
  const auto engines = list_items(o.engine, engine_from_name);
  const auto backwards = list_items(o.backward, backward_from_name);
  std::vector<Variant> variants;
  for (const std::string& engine : engines) {
    if (engine_from_name(engine) == Engine::tensor) {
      variants.push_back({Engine::tensor, Backward::generated, engine, "generated"});
      continue;
    }
    for (const std::string& backward : backwards) {
      variants.push_back({Engine::arrays, backward_from_name(backward), engine, backward});
    }
  }
  const bool any_arrays =
      std::any_of(variants.begin(), variants.end(), [](const Variant& v) { return v.engine == Engine::arrays; });
  check_backward_applies(any_arrays ? Engine::arrays : Engine::tensor, o.backward_given);
  return variants;
}

// The step's two passes over all parameters, timed alone (interleaved) against their share of the
// floor: the gradient norm reads the gradients (4 bytes a parameter), the update reads g, m, v, p
// and writes m, v, p and the zeroed g (32 bytes); the floor counts 28 (optimizer_bytes).
void print_optimizer_passes(Model& model, DataParallelAdamW& optimizer, const BenchOptions& o, double bandwidth) {
  const std::size_t n = model.num_parameters();
  int step = 0;
  const std::vector<double> ms = interleaved_median_ms(2, o.warmup, o.iters, [&](std::size_t k) {
    if (k == 0) {
      gradient_global_norm(model.grads_memory(), n);
    } else {
      optimizer.update(1e-4f, 1.0f, ++step);
    }
  });
  const double floor_ms = optimizer_bytes(n) / (bandwidth * 1e6);
  fmt::print("adamw: norm {:.1f} ms ({:.1f} GB/s) + update {:.1f} ms ({:.1f} GB/s) = {:.2f}x the floor's {:.1f} ms "
             "({} bytes a parameter)\n",
             ms[0], 4.0 * n / (ms[0] * 1e6), ms[1], 32.0 * n / (ms[1] * 1e6), (ms[0] + ms[1]) / floor_ms, floor_ms,
             optimizer_bytes(1));
}

// The adapters' forward and backward alone (medians, ms) at N rows: every adapted matrix of every
// layer on made-up inputs, the share of a LoRA step's forward and backward that is not the base's.
// The backward adds into the adapters' gradients (the caller zeroes them).
std::pair<double, double> time_adapters(const LoraAdapters& adapters, int N, const BenchOptions& o) {
  std::vector<int> tensors;  // each adapted matrix once (q, k and v share one)
  std::size_t in = 0, rows = 0;
  for (const LoraSite& site : adapters.sites()) {
    if (std::find(tensors.begin(), tensors.end(), site.tensor) == tensors.end()) tensors.push_back(site.tensor);
    in = std::max(in, std::size_t(site.in));
    rows = std::max(rows, std::size_t(site.rows));
  }
  std::vector<float> x(N * in, 0.01f), out(N * rows, 0.01f), dx(N * in);
  const std::vector<double> ms = interleaved_median_ms(2, o.warmup, o.iters, [&](std::size_t k) {
    for (int tensor : tensors) {
      for (int l = 0; l < adapters.layers(); l++) {
        if (k == 0) {
          adapters.add_output(tensor, l, out.data(), x.data(), N);
        } else {
          adapters.backward(tensor, l, dx.data(), out.data(), x.data(), N);
        }
      }
    }
  });
  return {ms[0], ms[1]};
}

// The shapes timed: Llama 3.2 1B at the shapes of its targets (docs/performance.md), the others
// at five, or the one -B/-T name.
std::vector<std::pair<int, int>> bench_shapes(const BenchOptions& o) {
  if (o.B > 0 || o.T > 0) return {{o.B > 0 ? o.B : 4, o.T > 0 ? o.T : 64}};
  if (o.model == "llama3.2-1B") return {{1, 64}, {2, 128}};
  return {{1, 16}, {1, 32}, {2, 16}, {1, 64}, {4, 64}};
}

// One row of the table: a variant's times at one shape against the floors, and its memory.
struct BenchRow {
  int B = 0, T = 0;
  StepTimes times;
  double gflops = 0, tok_per_s = 0;
  std::vector<StepPart> parts;
  StepFloors floors;
  double arena_mb = 0, rss_mb = 0;
  std::size_t tape_bytes = 0;
};

// The machine's ceilings, then every variant on one model, shape by shape. Under mpirun every
// process times the data-parallel step; rank 0 alone prints.
class Bench {
 public:
  explicit Bench(const BenchOptions& o)
      : o_(o),
        shapes_(bench_shapes(o)),
        variants_(bench_variants(o)),
        world_(Communicator::world()),
        gemm_(gemm_info()) {
    if (!world_.root() && !std::freopen("/dev/null", "w", stdout)) throw std::runtime_error("cannot close stdout");
    build_model_and_steps();  // first: a setting the model refuses fails before the probes
    peak_gflops_ = measure_sgemm_gflops();
    bandwidth_gbps_ = measure_memory_gbps();
    if (!reset_peak_rss()) {
      fmt::print(stderr, "bench: cannot reset the peak RSS: it includes the bandwidth probe's 512 MB\n");
    }
  }

  void run() {
    print_header();
    for (auto [B, T] : shapes_) time_shape(B, T);
    fmt::print("each part of the step against its own floor ({}; optimizer = step - fwd+bwd):\n",
               lora_ ? "the adapters timed alone; frozen forward = forward - theirs, input-gradient backward = "
                       "fwd+bwd - forward - theirs"
                     : "backward = fwd+bwd - forward");
    for (const std::string& line : part_lines_) fmt::print("{}\n", line);
    for (const std::string& line : json_lines_) fmt::print("{}\n", line);
  }

 private:
  // Built once, before any timing: each variant keeps its memory (arenas) from shape to shape.
  void build_model_and_steps() {
    model_ = o_.lora.given ? lora_model(o_.model, o_.lora, 1) : make_model(o_.model, 1);
    lora_ = dynamic_cast<const LoraModel*>(model_.get());
    int max_B = 0, max_T = 0;
    for (auto [B, T] : shapes_) {
      max_B = std::max(max_B, B);
      max_T = std::max(max_T, T);
    }
    // The arrays engine's activations (the tensor engine keeps its own in its arena).
    any_arrays_ =
        std::any_of(variants_.begin(), variants_.end(), [](const Variant& v) { return v.engine == Engine::arrays; });
    if (any_arrays_) model_->reserve_activations(max_B, max_T);
    for (const Variant& v : variants_)
      steps_.push_back(std::make_unique<ForwardBackward>(*model_, v.engine, v.backward));
    optimizer_.emplace(*model_, AdamWConfig{}, world_, o_.zero);
    Rng rng(1);
    tokens_.resize((std::size_t)max_B * max_T + 1);
    for (int& t : tokens_) t = int(rng.next_u64() % model_->vocab_size());
  }

  void print_header() {
    const int threads = omp_get_max_threads();
    fmt::print("adjoint bench: {} ({:.1f}M {}parameters), medians of {}, the rows of a shape timed in turn{}\n",
               o_.model, model_->num_parameters() / 1e6, lora_ ? "trained " : "", o_.iters,
               cpu_clock ? ", process CPU time" : "");
    if (lora_) fmt::print("model: {}\n", lora_->describe());
    fmt::print("threads: {}, waits: {}\n", threads, thread_wait_description());
    fmt::print(
        "{}\ncpu: {}; sgemm peak {:.0f} GFLOP/s, memory {:.1f} GB/s; floor = max(FLOPs / peak, bytes / bandwidth)\n",
        gemm_.line(threads), describe(gemm_.cpu), peak_gflops_, bandwidth_gbps_);
    if (!gemm_.warning().empty()) fmt::print(stderr, "bench: {}\n", gemm_.warning());
    fmt::print("step: AdamW with --zero {} over {} process{}: moments {:.1f} MB per process\n", o_.zero, world_.size(),
               world_.size() > 1 ? "es (data-parallel)" : "", moment_mb());
    print_optimizer_passes(*model_, *optimizer_, o_, bandwidth_gbps_);
    fmt::print("{:>3} {:>5} {:>7} {:>9} {:>10} {:>7} {:>10} {:>7} {:>9} {:>9} {:>10} {:>9} {:>8}\n", "B", "T", "engine",
               "backward", "fwdbwd ms", "/floor", "step ms", "/floor", "tok/s", "GFLOP/s", "arena MB", "tape B",
               "RSS MB");
  }

  double moment_mb() const { return optimizer_->moment_bytes() / 1048576.0; }

  // The rows take turns on one model: each arrays row first selects its backward pass.
  void run_variant(std::size_t k, int B, int T) {
    if (variants_[k].engine == Engine::arrays) model_->use_backward(variants_[k].backward);
    (*steps_[k])(tokens_.data(), tokens_.data() + 1, B, T);
  }

  // Times every variant's forward+backward and step (interleaved), and the arrays engine's forward
  // alone (the same for either backward: the rest of its fwd+bwd is the backward); a row each.
  void time_shape(int B, int T) {
    const std::vector<double> fwdbwd_ms =
        interleaved_median_ms(variants_.size(), o_.warmup, o_.iters, [&](std::size_t k) { run_variant(k, B, T); });
    const double forward_ms =
        any_arrays_ ? median_ms(o_.warmup, o_.iters, [&] { model_->forward(tokens_.data(), tokens_.data() + 1, B, T); })
                    : 0.0;
    const auto [adapters_forward_ms, adapters_backward_ms] =
        lora_ && any_arrays_ ? time_adapters(lora_->adapters(), B * T, o_) : std::pair<double, double>{-1, -1};
    model_->zero_grad();
    int step = 0;
    const std::vector<double> step_ms =
        interleaved_median_ms(variants_.size(), o_.warmup, o_.iters, [&](std::size_t k) {
          optimizer_->next_backward_is_last();
          run_variant(k, B, T);
          const double norm = optimizer_->reduce_gradients();
          optimizer_->update(1e-4f, clip_scale(norm, 1.0f), ++step);
        });
    for (std::size_t k = 0; k < variants_.size(); k++) {
      const Variant& v = variants_[k];
      const StepTimes times{.forward_ms = v.engine == Engine::arrays ? forward_ms : -1,
                            .fwdbwd_ms = fwdbwd_ms[k],
                            .step_ms = step_ms[k],
                            .adapters_forward_ms = adapters_forward_ms,
                            .adapters_backward_ms = adapters_backward_ms};
      const BenchRow row = make_row(k, B, T, times);
      print_row(v, row);
    }
  }

  BenchRow make_row(std::size_t k, int B, int T, const StepTimes& times) const {
    const Variant& v = variants_[k];
    const Model& model = *model_;
    BenchRow row;
    row.B = B;
    row.T = T;
    row.times = times;
    row.gflops = model.step_flops(B, T) / (times.fwdbwd_ms * 1e6);
    row.tok_per_s = B * T / (times.step_ms / 1e3);
    row.parts = step_parts(model, B, T, times);
    row.floors = step_floors(row.parts, peak_gflops_, bandwidth_gbps_);
    // What this engine needs: parameters, gradients, AdamW moments (with --zero 1 the shard's
    // and its summed gradients), and the activations (for the arrays engine's generated
    // backward also their adjoints, for the manual one its scratch; for the tensor engine its
    // arena, activations and adjoints, at this step's peak; with LoRA the frozen base too). Peak
    // RSS is the process's since the probes, all runs so far.
    const ForwardBackward& forward_backward = *steps_[k];
    const double activation_floats =
        v.engine == Engine::tensor
            ? double(forward_backward.tensor()->arena().capacity_floats())
            : double(model.activation_floats()) + (v.backward == Backward::generated
                                                       ? double(model.activation_adjoint_floats())
                                                       : double(model.backward_scratch_floats()));
    row.arena_mb =
        (2.0 * model.num_parameters() + activation_floats) * sizeof(float) / 1048576.0 + moment_mb() +
        (optimizer_->shard_gradient_bytes() + (lora_ ? lora_->frozen_parameter_bytes(false) : 0.0)) / 1048576.0;
    row.tape_bytes = v.engine == Engine::tensor          ? forward_backward.tensor()->tape_bytes()
                     : v.backward == Backward::generated ? model.tape_bytes()
                                                         : 0;
    row.rss_mb = peak_rss_mb();
    return row;
  }

  // The table's line now; the parts and the JSON record after the table.
  void print_row(const Variant& v, const BenchRow& r) {
    fmt::print(
        "{:>3} {:>5} {:>7} {:>9} {:>10.1f} {:>7.2f} {:>10.1f} {:>7.2f} {:>9.0f} {:>9.1f} {:>10.0f} {:>9} {:>8.0f}\n",
        r.B, r.T, v.engine_name, v.backward_name, r.times.fwdbwd_ms, r.times.fwdbwd_ms / r.floors.fwdbwd_ms,
        r.times.step_ms, r.times.step_ms / r.floors.step_ms, r.tok_per_s, r.gflops, r.arena_mb, r.tape_bytes, r.rss_mb);
    part_lines_.push_back(fmt::format("{:>3} {:>5} {:>7} {:>9}: {}", r.B, r.T, v.engine_name, v.backward_name,
                                      describe_parts(r.parts, peak_gflops_, bandwidth_gbps_)));
    nlohmann::json parts = nlohmann::json::array();
    for (const StepPart& part : r.parts) {
      parts.push_back({{"part", part.name}, {"ms", part.ms}, {"flops", part.flops}, {"bytes", part.bytes}});
    }
    json_lines_.push_back(nlohmann::json{
        {"model", o_.model},
        {"engine", v.engine_name},
        {"backward", v.backward_name},
        {"B", r.B},
        {"T", r.T},
        {"lora_rank", lora_ ? lora_->adapters().config().rank : 0},
        {"step_ms", r.times.step_ms},
        {"fwdbwd_ms", r.times.fwdbwd_ms},
        {"forward_ms", std::max(r.times.forward_ms, 0.0)},
        {"parts", parts},
        {"tok_per_s", r.tok_per_s},
        {"parameters", model_->num_parameters()},
        {"gflops", r.gflops},
        {"sgemm_peak_gflops", peak_gflops_},
        {"memory_gbps", bandwidth_gbps_},
        {"gemm", gemm_.line(omp_get_max_threads())},
        {"gemm_kernel", gemm_.kernel},
        {"compute_floor_ms", r.floors.compute_ms},
        {"fwdbwd_floor_ms", r.floors.fwdbwd_ms},
        {"floor_ms", r.floors.step_ms},
        {"arena_mb", r.arena_mb},
        {"processes", world_.size()},
        {"zero", o_.zero},
        {"adamw_moment_mb", moment_mb()},
        {"tape_bytes", r.tape_bytes},
        {"peak_rss_mb",
         r.rss_mb}}.dump());
  }

  const BenchOptions& o_;
  const std::vector<std::pair<int, int>> shapes_;
  const std::vector<Variant> variants_;
  const Communicator& world_;
  const GemmInfo& gemm_;
  double peak_gflops_ = 0, bandwidth_gbps_ = 0;
  std::unique_ptr<Model> model_;
  const LoraModel* lora_ = nullptr;  // model_ when it trains adapters
  bool any_arrays_ = false;
  std::vector<std::unique_ptr<ForwardBackward>> steps_;
  std::optional<DataParallelAdamW> optimizer_;
  std::vector<int> tokens_;
  std::vector<std::string> part_lines_, json_lines_;
};

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd =
      app.add_subcommand("bench", "Time GPT-2 or Llama 3 training steps (full, or LoRA with train's --lora-* flags)");
  cmd->add_option("--model", o->model, "Config name, model file or Hugging Face folder")->capture_default_str();
  cmd->add_option("-B,--batch", o->B, "Only this batch size")->check(whole_number(1));
  cmd->add_option("-T,--seq-len", o->T, "Only this sequence length")->check(whole_number(1));
  cmd->add_option("--engine", o->engine,
                  "arrays (kernels over arenas), tensor (Tensor modules, backward by adjc), or both as arrays,tensor")
      ->capture_default_str();
  cmd->add_option("--backward", o->backward,
                  "Arrays engine's backward: manual (hand-written), generated (by adjc), or both as manual,generated")
      ->capture_default_str()
      ->each([o](const std::string&) { o->backward_given = true; });
  cmd->add_option("--clock", o->clock,
                  "wall, or cpu: the process's CPU time (with OMP_NUM_THREADS=1, steady on a shared machine)")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed iterations first")->check(whole_number(0))->capture_default_str();
  cmd->add_option("--iters", o->iters, "Timed iterations (the median is reported)")
      ->check(whole_number(1))
      ->capture_default_str();
  cmd->add_option("--zero", o->zero,
                  "ZeRO stage of the step's AdamW: 0 (whole moments) or 1 (sharded over the processes mpirun starts)")
      ->check(whole_number(0, 1))
      ->capture_default_str();
  add_lora_flags(*cmd, o->lora);
  cmd->callback([o] {
    cpu_clock = o->clock == "cpu";
    Bench(*o).run();
  });
}

}  // namespace adjoint::cli
