// `adjoint train`: AdamW training with a cosine schedule, clipping, gradient accumulation,
// periodic validation and samples, a JSONL log, and resumable checkpoints.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "adjoint/checkpoint.hpp"
#include "adjoint/data_parallel_adamw.hpp"
#include "adjoint/dataloader.hpp"
#include "adjoint/distributed.hpp"
#include "adjoint/file_io.hpp"
#include "adjoint/gemm.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/token_file.hpp"
#include "adjoint/tokenizer.hpp"
#include "commands.hpp"
#include "engine.hpp"
#include "flags.hpp"
#include "generation.hpp"
#include "lora.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {
namespace {

struct TrainOptions {
  std::string model = "d4", data, train_tokens, val_tokens, out = "out/train", resume, bpe_dir;
  // adjc's backward where the build has it: it matches the hand-written one (docs/performance.md).
  std::string engine = "arrays", backward = have_generated_backward() ? "generated" : "manual";
  bool backward_given = false, model_given = false;
  int skip_nonfinite = 0;
  int zero = 0;          // ZeRO stage: 1 shards AdamW's moments over the processes
  bool overlap = false;  // sum each layer's gradients during the manual backward
  int B = 8, T = 128, steps = 200, warmup = 20, grad_accum = 1, stop_at = 0;
  float lr = 6e-4f, lr_min_fraction = 0.1f, grad_clip = 1.0f;
  AdamWConfig adamw;
  int val_every = 50, val_steps = 10, sample_every = 0, sample_tokens = 64, checkpoint_every = 0;
  std::uint64_t seed = 1337;
  LoraFlags lora;  // given: train adapters on a frozen base
};

std::string format_duration(double seconds) {
  const long s = std::lround(seconds);
  return s >= 60 ? fmt::format("{}m{:02d}s", s / 60, s % 60) : fmt::format("{}s", s);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The mean loss over val_steps global batches (each process its slice of each).
float validation_loss(Model& model, DataLoader& val, int val_steps, const Communicator& world) {
  val.reset();
  const int batches = std::max<int>(1, std::min<std::size_t>(val_steps, val.num_batches()));
  double sum = 0;
  for (int i = 0; i < batches; i++) {
    val.next_batch();
    sum += model.forward(val.inputs(), val.targets(), val.batch_size(), val.sequence_length());
  }
  return float(world.sum(sum) / world.size() / batches);
}

// A sample as text (token ids when the model's vocabulary is not the tokenizer's).
std::string sample_text(const Model& model, const BytePairEncoding* tokenizer, int count, Rng& rng) {
  TokenPrinter printer(model.vocab_size(), tokenizer);
  std::string text;
  const int context = model.start_token();
  generate(model, {&context, 1}, count, {.temperature = 1.0f, .top_k = 40}, rng,
           [&](int token) { text += printer.add(token); });
  return text + printer.finish();
}

// log.jsonl: one JSON object per line, each written through as one write; a write error (a full
// disk) stops the run and removes the part of the line that was written. A new run starts it
// empty; a resumed run keeps the lines up to the step it resumes from (a killed run may have
// logged steps after its last checkpoint) and appends.
class TrainingLog {
 public:
  TrainingLog(std::string path, int keep_through_step) : path_(std::move(path)) {
    std::uintmax_t keep = 0;
    if (keep_through_step > 0 && std::filesystem::exists(path_)) {
      const std::string text = read_file(path_);
      for (std::size_t end; (end = text.find('\n', keep)) != std::string::npos; keep = end + 1) {
        const auto record = nlohmann::json::parse(text.substr(keep, end - keep), nullptr, false);
        if (!record.is_object() || !record.contains("step") || !record["step"].is_number_integer() ||
            record["step"].get<std::int64_t>() > keep_through_step) {
          break;
        }
      }
    }
    file_ = std::fopen(path_.c_str(), keep > 0 ? "r+b" : "wb");
    if (!file_ || std::setvbuf(file_, nullptr, _IONBF, 0) != 0 ||
        (keep > 0 && ::ftruncate(fileno(file_), off_t(keep)) != 0) || std::fseek(file_, 0, SEEK_END) != 0) {
      fail();
    }
    size_ = off_t(keep);
  }
  ~TrainingLog() {
    if (file_) std::fclose(file_);
  }
  TrainingLog(const TrainingLog&) = delete;
  TrainingLog& operator=(const TrainingLog&) = delete;

  void write(const nlohmann::json& record) {
    const std::string line = record.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size()) {
      const int error = errno;
      [[maybe_unused]] const int truncated = ::ftruncate(fileno(file_), size_);  // best effort
      errno = error;  // the write's error is the one to report
      fail();
    }
    size_ += off_t(line.size());
  }
  // To disk before a checkpoint, so that after a crash the log is never behind the checkpoint.
  void sync() {
    if (::fsync(fileno(file_)) != 0) fail();
  }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail() const { throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno)); }
  std::string path_;
  std::FILE* file_ = nullptr;
  off_t size_ = 0;  // the bytes of whole lines
};

// One run per output folder: an exclusive lock on DIR/train.lock (holding the owner's pid), held
// until the process ends; the kernel releases it however the process ends.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) : path_(dir + "/train.lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot create " + path_ + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {};
      const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
      ::close(fd_);
      throw std::runtime_error(fmt::format("{} is in use by another `adjoint train` (pid {}); wait for it to finish "
                                           "or choose another --out",
                                           dir, n > 0 ? std::string(pid, n) : "unknown"));
    }
    const std::string pid = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
      throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
    }
  }
  ~FolderLock() { ::close(fd_); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

// --resume continues the model in the state file; a --model naming another shape is an error,
// and a model file would be ignored, so it is refused.
void check_model_matches_state(const std::string& name, const Model& state, const std::string& resume) {
  std::string named;
  try {
    named = is_llama_name(name) ? describe(llama_config_from_name(name)) : describe(gpt2_config_from_name(name));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("--model " + name + " with --resume: the weights come from " + resume +
                                "; leave out --model");
  }
  if (named != state.describe()) {
    throw std::invalid_argument(fmt::format("--model {} is not the model in {} ({})", name, resume, state.describe()));
  }
}

// One `adjoint train` run: set up from the options (model, data, optimizer, resumed progress), then
// the step loop. Rank 0 alone prints, logs, samples and writes checkpoints; the others only compute.
class TrainingRun {
 public:
  explicit TrainingRun(const TrainOptions& o)
      : o_(o), world_(Communicator::world()), root_(world_.root()), rng_(o.seed) {
    choose_data_paths();
    load_model();
    forward_backward_.emplace(*model_, engine_, backward_from_name(backward_));
    // Under mpirun each process reads its slice of every global batch of size*B rows.
    optimizer_.emplace(*model_, o_.adamw, world_, o_.zero, o_.overlap);
    train_.emplace(train_path_, o_.B, o_.T, model_->vocab_size(), world_.rank(), world_.size());
    if (!val_path_.empty()) val_.emplace(val_path_, o_.B, o_.T, model_->vocab_size(), world_.rank(), world_.size());
    check_processes_agree();
    if (!o_.resume.empty()) resume_progress();
    if (root_) open_output();
  }

  void run() {
    run_start_ = std::chrono::steady_clock::now();
    for (int step = start_step_; step < o_.steps; step++) {
      train_step(step);
      const bool last = step + 1 == o_.steps;
      const bool stop = last || step + 1 == o_.stop_at;
      if (val_ && ((o_.val_every > 0 && (step + 1) % o_.val_every == 0) || last)) validate(step);
      if (root_ && ((o_.sample_every > 0 && (step + 1) % o_.sample_every == 0) || last)) sample(step);
      // Saved after the sample, whose draws advance the RNG, so a run resumed from this
      // checkpoint samples as an uninterrupted one does. Every process takes part (ZeRO-1 gathers
      // the moments to rank 0, which writes).
      if ((o_.checkpoint_every > 0 && (step + 1) % o_.checkpoint_every == 0) || stop) {
        optimizer_->with_whole_moments([&](const AdamW& moments) { save(step + 1, moments); });
      }
      if (stop) break;
    }
    if (root_) {
      std::printf("done: %s/model.bin, %s/state.bin, %s\n", o_.out.c_str(), o_.out.c_str(), log_->path().c_str());
    }
  }

 private:
  void choose_data_paths() {
    train_path_ = !o_.train_tokens.empty() ? o_.train_tokens : !o_.data.empty() ? o_.data + "/train.bin" : "";
    val_path_ = !o_.val_tokens.empty() ? o_.val_tokens : !o_.data.empty() ? o_.data + "/val.bin" : "";
    if (train_path_.empty()) throw std::invalid_argument("no training data: give --data DIR or --train-tokens FILE");
  }

  // The model (new, or the one in the --resume state; with LoRA, --model with adapters), its
  // engine and backward.
  void load_model() {
    if (o_.lora.given) {
      model_ = lora_model(o_.model, o_.lora, o_.seed);
    } else if (!o_.resume.empty()) {
      model_ = model_from_training_state(o_.resume);
      if (o_.model_given) check_model_matches_state(o_.model, *model_, o_.resume);
    } else {
      model_ = make_model(o_.model, o_.seed);
    }
    if (o_.T > model_->max_seq_len()) {
      throw std::invalid_argument(
          fmt::format("-T {} exceeds the model's maximum sequence length {}", o_.T, model_->max_seq_len()));
    }
    engine_ = engine_from_name(o_.engine);
    check_backward_applies(engine_, o_.backward_given);
    // The default backward is adjc's where the build and the model have it.
    backward_ = o_.backward_given || model_->has_backward(Backward::generated) ? o_.backward : "manual";
  }

  // Under mpirun every process must run the same training on the same data.
  void check_processes_agree() const {
    for (const auto& [flag, value] :
         std::initializer_list<std::pair<const char*, std::string>>{{"--model", o_.model},
                                                                    {"--resume", o_.resume},
                                                                    {"-B", std::to_string(o_.B)},
                                                                    {"-T", std::to_string(o_.T)},
                                                                    {"--grad-accum", std::to_string(o_.grad_accum)},
                                                                    {"--steps", std::to_string(o_.steps)},
                                                                    {"--lr", fmt::format("{}", o_.lr)},
                                                                    {"--seed", std::to_string(o_.seed)},
                                                                    {"--engine", o_.engine},
                                                                    {"--backward", o_.backward},
                                                                    {"--zero", std::to_string(o_.zero)},
                                                                    {"--overlap", o_.overlap ? "on" : "off"}}) {
      world_.check_same(flag, value.empty() ? "(none)" : value);
    }
    world_.check_same("the data", fmt::format("{} ({} tokens), validation {} ({} tokens)", train_path_,
                                              train_->num_tokens(), val_path_, val_ ? val_->num_tokens() : 0));
  }

  void resume_progress() {
    const TrainingProgress progress = optimizer_->load_training_state(o_.resume);
    if (progress.batch_size != o_.B || progress.seq_len != o_.T) {
      throw std::invalid_argument(fmt::format("{} was trained with -B {} -T {}; resume with the same", o_.resume,
                                              progress.batch_size, progress.seq_len));
    }
    if (progress.step > o_.steps) {
      throw std::invalid_argument(fmt::format("{} is at step {}, past --steps {}", o_.resume, progress.step, o_.steps));
    }
    if (progress.data_position >= train_->num_tokens()) {
      throw std::invalid_argument(fmt::format("{}: data position {} is past the end of {} ({} tokens)", o_.resume,
                                              progress.data_position, train_path_, train_->num_tokens()));
    }
    start_step_ = int(progress.step);
    checkpoint_step_ = start_step_;
    skipped_steps_ = progress.skipped_steps;
    train_->set_position(progress.data_position);
    rng_.set_state(progress.rng_state);
  }

  // Everything is checked: now the output folder, which only this run may write, and the header.
  void open_output() {
    try {
      tokenizer_ = tokenizer_for(model_->vocab_size(), o_.bpe_dir, "");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "train: no tokenizer (%s); samples are printed as token ids\n", e.what());
    }
    std::filesystem::create_directories(o_.out);
    lock_.emplace(o_.out);
    remove_stale_checkpoints(o_.out);
    check_free_space(o_.out, checkpoint_bytes(model_->num_parameters()), "a checkpoint");
    // A new run replaces the folder's previous run, log and checkpoint together.
    log_.emplace(o_.out + "/log.jsonl", start_step_);
    if (o_.resume.empty()) remove_checkpoint(o_.out);
    print_header();
  }

  void print_header() {
    const GemmInfo& gemm = gemm_info();
    const int threads = omp_get_max_threads();
    const std::string engine_name =
        engine_ == Engine::tensor ? "tensor engine" : "arrays engine, " + backward_ + " backward";
    std::printf("model: %s, %.2fM parameters; B=%d T=%d accum=%d, %d steps, %s%s\n", model_->describe().c_str(),
                model_->num_parameters() / 1e6, o_.B, o_.T, o_.grad_accum, o_.steps, engine_name.c_str(),
                world_.size() > 1 ? fmt::format("; data-parallel over {} processes", world_.size()).c_str() : "");
    std::printf("data: %s (%zu tokens)%s\n", train_path_.c_str(), train_->num_tokens(),
                val_ ? fmt::format(", val {} ({} tokens)", val_path_, val_->num_tokens()).c_str() : "");
    std::printf("%s\n", gemm.line(threads).c_str());
    if (o_.zero == 1) {
      std::printf("ZeRO-1: AdamW moments %.1f MB per process (%.1f MB whole)\n", optimizer_->moment_bytes() / 1e6,
                  2.0 * sizeof(float) * model_->num_parameters() / 1e6);
    }
    if (!gemm.warning().empty()) std::fprintf(stderr, "train: %s\n", gemm.warning().c_str());
    std::fflush(stdout);
    // One record per run (a resumed run adds its own): what ran, on what.
    log_->write({{"step", start_step_},
                 {"run",
                  {{"gemm", gemm.line(threads)},
                   {"gemm_kernel", gemm.kernel},
                   {"cpu", describe(gemm.cpu)},
                   {"threads", threads},
                   {"processes", world_.size()},
                   {"zero", o_.zero},
                   {"adamw_moment_bytes_per_process", optimizer_->moment_bytes()}}}});
  }

  // The step's micro-batches, then its update, or a skip when the loss or norm is not finite.
  void train_step(int step) {
    const auto step_start = std::chrono::steady_clock::now();
    const float lr = learning_rate(step, o_.steps, o_.warmup, o_.lr, o_.lr_min_fraction);
    double loss = 0;
    for (int micro = 0; micro < o_.grad_accum; micro++) {
      train_->next_batch();
      if (micro == o_.grad_accum - 1) optimizer_->next_backward_is_last();
      loss += (*forward_backward_)(train_->inputs(), train_->targets(), o_.B, o_.T);
    }
    // Micro-batch gradients were summed, and are summed over the processes: their mean is the
    // global batch's gradient. Every process sees the same sums, so all take the same branch below.
    const int batches = o_.grad_accum * world_.size();
    const double norm = optimizer_->reduce_gradients() / batches;
    loss = world_.sum(loss) / batches;
    if (std::isfinite(loss) && std::isfinite(norm)) {
      optimizer_->update(lr, clip_scale(norm, o_.grad_clip) / batches, step + 1);
      if (root_) report_step(step, loss, lr, norm, seconds_since(step_start) * 1e3);
    } else {
      skip_step(step, fmt::format("the loss is {} and the gradient norm {}", loss, norm));
    }
    std::fflush(stdout);
  }

  void report_step(int step, double loss, float lr, double norm, double ms) {
    const double tokens_per_step = double(o_.B) * o_.T * o_.grad_accum * world_.size();
    const double eta = seconds_since(run_start_) / (step + 1 - start_step_) * (o_.steps - step - 1);
    std::printf("step %4d/%d | loss %.6f | lr %.2e | norm %.3f | %6.1f ms | %6.0f tok/s | ETA %s\n", step + 1, o_.steps,
                loss, lr, norm, ms, tokens_per_step / (ms / 1e3), format_duration(eta).c_str());
    nlohmann::json record = {{"step", step + 1},  {"loss", loss}, {"lr", lr},
                             {"grad_norm", norm}, {"ms", ms},     {"tok_per_s", tokens_per_step / (ms / 1e3)}};
    // Under mpirun: the gradient sum's time after the backward (what --overlap did not hide).
    if (world_.size() > 1) record["reduce_ms"] = optimizer_->last_reduce_ms();
    log_->write(record);
  }

  // A diverged run or bad data: never an update from it. Large-scale trainers skip such a step
  // (its batch is consumed) and go on; --skip-nonfinite says how many times.
  void skip_step(int step, const std::string& what) {
    if (skipped_steps_ >= o_.skip_nonfinite) {
      if (root_) log_->write({{"step", step + 1}, {"stopped", what}});
      throw std::runtime_error(fmt::format(
          "step {}: {}; stopped without saving ({}). Lower --lr, or let --skip-nonfinite N skip such steps{}", step + 1,
          what, last_checkpoint(),
          o_.skip_nonfinite > 0 ? fmt::format(" (all {} skips are used)", o_.skip_nonfinite) : ""));
    }
    skipped_steps_++;
    model_->zero_grad();
    if (root_) {
      std::printf("step %4d/%d | skipped: %s (%lld of --skip-nonfinite %d)\n", step + 1, o_.steps, what.c_str(),
                  static_cast<long long>(skipped_steps_), o_.skip_nonfinite);
      log_->write({{"step", step + 1}, {"skipped", what}, {"skipped_steps", skipped_steps_}});
    }
  }

  void validate(int step) {
    const float val_loss = validation_loss(*model_, *val_, o_.val_steps, world_);
    if (root_) {
      std::printf("step %4d/%d | val loss %.6f\n", step + 1, o_.steps, val_loss);
      log_->write({{"step", step + 1}, {"val_loss", val_loss}});
    }
  }

  void sample(int step) {
    std::printf("--- sample at step %d ---\n%s\n---\n", step + 1,
                sample_text(*model_, tokenizer_.get(), o_.sample_tokens, rng_).c_str());
  }

  std::string last_checkpoint() const {
    return checkpoint_step_ < 0 ? fmt::format("{} holds no checkpoint of this run yet", o_.out)
                                : fmt::format("the checkpoint in {} is from step {}", o_.out, checkpoint_step_);
  }

  void save(int steps_done, const AdamW& moments) {
    const std::size_t count = model_->num_parameters();
    for (const float* values : {model_->params_memory(), moments.m(), moments.v()}) {
      if (first_nonfinite(values, count) != count) {
        throw std::runtime_error(fmt::format("step {}: the parameters or AdamW moments are not finite after the "
                                             "update; stopped without saving ({})",
                                             steps_done, last_checkpoint()));
      }
    }
    try {
      check_free_space(o_.out, checkpoint_bytes(count), fmt::format("the checkpoint of step {}", steps_done));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("{}; stopped without saving ({})", e.what(), last_checkpoint()));
    }
    TrainingProgress progress;
    progress.step = steps_done;
    progress.data_position = train_->position();
    progress.rng_state = rng_.state();
    progress.batch_size = o_.B;
    progress.seq_len = o_.T;
    progress.skipped_steps = skipped_steps_;
    log_->sync();
    save_checkpoint(o_.out, *model_, moments, progress);
    checkpoint_step_ = steps_done;
  }

  const TrainOptions& o_;
  const Communicator& world_;
  const bool root_;
  std::string train_path_, val_path_;
  std::unique_ptr<Model> model_;
  Engine engine_ = Engine::arrays;
  std::string backward_;
  std::optional<ForwardBackward> forward_backward_;
  std::optional<DataParallelAdamW> optimizer_;
  std::optional<DataLoader> train_, val_;
  Rng rng_;
  int start_step_ = 0;
  int checkpoint_step_ = -1;  // the step the folder's checkpoint holds
  std::int64_t skipped_steps_ = 0;
  std::unique_ptr<BytePairEncoding> tokenizer_;
  std::optional<FolderLock> lock_;
  std::optional<TrainingLog> log_;
  std::chrono::steady_clock::time_point run_start_;
};

// The batch shape and length of the run.
void add_shape_flags(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("-B,--batch", o.B, "Batch size")->check(whole_number(1))->capture_default_str();
  cmd->add_option("-T,--seq-len", o.T, "Sequence length")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--steps", o.steps, "Optimizer steps")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--grad-accum", o.grad_accum, "Micro-batches per step")
      ->check(whole_number(1))
      ->capture_default_str();
}

// AdamW, its schedule and clipping.
void add_optimizer_flags(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--lr", o.lr, "Peak learning rate")->check(real_number(0, INFINITY))->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Linear warmup steps")->check(whole_number(0))->capture_default_str();
  cmd->add_option("--lr-min-fraction", o.lr_min_fraction, "Final LR as a fraction of the peak (cosine)")
      ->check(real_number(0, 1))
      ->capture_default_str();
  cmd->add_option("--beta1", o.adamw.beta1, "AdamW beta1")
      ->check(real_number(0, 1, false, true))
      ->capture_default_str();
  cmd->add_option("--beta2", o.adamw.beta2, "AdamW beta2")
      ->check(real_number(0, 1, false, true))
      ->capture_default_str();
  cmd->add_option("--eps", o.adamw.eps, "AdamW epsilon")->check(real_number(0, INFINITY, true))->capture_default_str();
  cmd->add_option("--weight-decay", o.adamw.weight_decay, "AdamW weight decay (2-D weights only)")
      ->check(real_number(0, INFINITY))
      ->capture_default_str();
  cmd->add_option("--grad-clip", o.grad_clip, "Clip the global gradient norm to this (0 = off)")
      ->check(real_number(0, INFINITY))
      ->capture_default_str();
}

// Skips, validation, samples, checkpoints and the distributed optimizer.
void add_progress_flags(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--skip-nonfinite", o.skip_nonfinite,
                  "Skip up to N steps whose loss or gradient norm is NaN or infinite (no update; logged as "
                  "\"skipped\"); the next one stops the run, as does the first when N is 0")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--val-every", o.val_every, "Validate every N steps (0 = only at the end)")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--val-steps", o.val_steps, "Validation batches")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--sample-every", o.sample_every, "Sample every N steps (0 = only at the end)")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--sample-tokens", o.sample_tokens, "Tokens per sample")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", o.checkpoint_every, "Save a checkpoint every N steps (0 = only at the end)")
      ->check(whole_number(0))
      ->capture_default_str();
  cmd->add_option("--stop-at", o.stop_at, "Stop (with a checkpoint) after this step, as if interrupted")
      ->check(whole_number(0));
  cmd->add_option("--zero", o.zero,
                  "ZeRO stage: 0 keeps AdamW's moments whole on every process, 1 shards them over the processes "
                  "(each 1/N; gradients reduce-scattered, parameters all-gathered)")
      ->check(whole_number(0, 1))
      ->capture_default_str();
  cmd->add_flag("--overlap", o.overlap,
                "Under mpirun, start summing each layer's gradients while the hand-written backward computes "
                "the earlier layers (the generated backward and the tensor engine sum after their backward)");
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "Train GPT-2 or Llama 3 with AdamW");
  // A flag given twice takes the last value, so scripts/train.sh's defaults can be overridden.
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_option("--model", o->model,
                  "Config name (gpt2-124M, d4, d6, d12…, llama-d4, llama3-bench…), model file (GPT-2 or Llama 3) or "
                  "Hugging Face folder")
      ->capture_default_str()
      ->each([o](const std::string&) { o->model_given = true; });
  cmd->add_option("--data", o->data, "Folder with train.bin and val.bin (from `adjoint prepare`)");
  cmd->add_option("--train-tokens", o->train_tokens, "Training token file (overrides --data)");
  cmd->add_option("--val-tokens", o->val_tokens, "Validation token file (overrides --data)");
  cmd->add_option("--out", o->out,
                  "Output folder, one run at a time: log.jsonl, model.bin and state.bin (the checkpoint)")
      ->capture_default_str();
  cmd->add_option("--resume", o->resume, "Training-state file to continue from (the run's state.bin)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--bpe-dir", o->bpe_dir,
                  "Folder with encoder.json and vocab.bpe (default $ADJOINT_BPE_DIR, "
                  "else the folder scripts/setup.sh fills)");
  cmd->add_option("--engine", o->engine,
                  "arrays (kernels over arenas) or tensor (Tensor modules, backward by adjc); validation and samples "
                  "use the engine's forward either way")
      ->check(CLI::IsMember({"arrays", "tensor"}))
      ->capture_default_str();
  cmd->add_option(
         "--backward", o->backward,
         "Arrays engine's backward: manual (hand-written) or generated (by adjc, the default when built with adjc)")
      ->check(CLI::IsMember({"manual", "generated"}))
      ->capture_default_str()
      ->each([o](const std::string&) { o->backward_given = true; });
  add_shape_flags(cmd, *o);
  add_optimizer_flags(cmd, *o);
  add_progress_flags(cmd, *o);
  cmd->add_option("--seed", o->seed, "Seed for initialisation and sampling")->capture_default_str();
  add_lora_flags(*cmd, o->lora);
  cmd->callback([o] { TrainingRun(*o).run(); });
}

}  // namespace adjoint::cli
