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
  int zero = 0;  // ZeRO stage: 1 shards AdamW's moments over the processes
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
                                           "or choose another --out", dir, n > 0 ? std::string(pid, n) : "unknown"));
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

void run_training(const TrainOptions& o) {
  namespace fs = std::filesystem;
  const std::string train_path = !o.train_tokens.empty() ? o.train_tokens
                                 : !o.data.empty()       ? o.data + "/train.bin"
                                                         : "";
  const std::string val_path = !o.val_tokens.empty() ? o.val_tokens
                               : !o.data.empty()     ? o.data + "/val.bin"
                                                     : "";
  if (train_path.empty()) throw std::invalid_argument("no training data: give --data DIR or --train-tokens FILE");

  std::unique_ptr<Model> model;
  if (o.lora.given) {
    model = lora_model(o.model, o.lora, o.engine, o.seed);
  } else if (!o.resume.empty()) {
    model = model_from_training_state(o.resume);
    if (o.model_given) check_model_matches_state(o.model, *model, o.resume);
  } else {
    model = make_model(o.model, o.seed);
  }
  if (o.T > model->max_seq_len()) {
    throw std::invalid_argument(fmt::format("-T {} exceeds the model's maximum sequence length {}", o.T,
                                            model->max_seq_len()));
  }
  const Engine engine = engine_from_name(o.engine);
  check_backward_applies(engine, o.backward_given);
  // The default backward is adjc's where the build and the model have it.
  const std::string backward =
      o.backward_given || model->has_backward(Backward::generated) ? o.backward : std::string("manual");
  ForwardBackward forward_backward(*model, engine, backward_from_name(backward));
  // Under mpirun each process reads its slice of every global batch of size*B rows.
  const Communicator& world = Communicator::world();
  DataParallelAdamW optimizer(*model, o.adamw, world, o.zero, o.overlap);
  const bool root = world.root();
  DataLoader train(train_path, o.B, o.T, model->vocab_size(), world.rank(), world.size());
  std::optional<DataLoader> val;
  if (!val_path.empty()) val.emplace(val_path, o.B, o.T, model->vocab_size(), world.rank(), world.size());
  for (const auto& [flag, value] : std::initializer_list<std::pair<const char*, std::string>>{
           {"--model", o.model}, {"--resume", o.resume}, {"-B", std::to_string(o.B)}, {"-T", std::to_string(o.T)},
           {"--grad-accum", std::to_string(o.grad_accum)}, {"--steps", std::to_string(o.steps)},
           {"--lr", fmt::format("{}", o.lr)}, {"--seed", std::to_string(o.seed)}, {"--engine", o.engine},
           {"--backward", o.backward}, {"--zero", std::to_string(o.zero)},
           {"--overlap", o.overlap ? "on" : "off"}}) {
    world.check_same(flag, value.empty() ? "(none)" : value);
  }
  world.check_same("the data", fmt::format("{} ({} tokens), validation {} ({} tokens)", train_path,
                                           train.num_tokens(), val_path, val ? val->num_tokens() : 0));
  Rng rng(o.seed);
  int start_step = 0;
  std::int64_t skipped_steps = 0;
  if (!o.resume.empty()) {
    const TrainingProgress progress = optimizer.load_training_state(o.resume);
    if (progress.batch_size != o.B || progress.seq_len != o.T) {
      throw std::invalid_argument(fmt::format("{} was trained with -B {} -T {}; resume with the same",
                                              o.resume, progress.batch_size, progress.seq_len));
    }
    if (progress.step > o.steps) {
      throw std::invalid_argument(fmt::format("{} is at step {}, past --steps {}", o.resume, progress.step, o.steps));
    }
    if (progress.data_position >= train.num_tokens()) {
      throw std::invalid_argument(fmt::format("{}: data position {} is past the end of {} ({} tokens)", o.resume,
                                              progress.data_position, train_path, train.num_tokens()));
    }
    start_step = int(progress.step);
    skipped_steps = progress.skipped_steps;
    train.set_position(progress.data_position);
    rng.set_state(progress.rng_state);
  }
  // Rank 0 alone prints, logs, samples and writes checkpoints; the others only compute.
  const GemmInfo& gemm = gemm_info();
  const int threads = omp_get_max_threads();
  std::unique_ptr<BytePairEncoding> tokenizer;
  std::optional<FolderLock> lock;
  std::optional<TrainingLog> log;
  if (root) {
    try {
      tokenizer = tokenizer_for(model->vocab_size(), o.bpe_dir, "");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "train: no tokenizer (%s); samples are printed as token ids\n", e.what());
    }
    // Everything is checked: now the output folder, which only this run may write.
    fs::create_directories(o.out);
    lock.emplace(o.out);
    remove_stale_checkpoints(o.out);
    check_free_space(o.out, checkpoint_bytes(model->num_parameters()), "a checkpoint");
    // A new run replaces the folder's previous run, log and checkpoint together.
    log.emplace(o.out + "/log.jsonl", start_step);
    if (o.resume.empty()) remove_checkpoint(o.out);
    const std::string engine_name =
        engine == Engine::tensor ? "tensor engine" : "arrays engine, " + backward + " backward";
    std::printf("model: %s, %.2fM parameters; B=%d T=%d accum=%d, %d steps, %s%s\n", model->describe().c_str(),
                model->num_parameters() / 1e6, o.B, o.T, o.grad_accum, o.steps, engine_name.c_str(),
                world.size() > 1 ? fmt::format("; data-parallel over {} processes", world.size()).c_str() : "");
    std::printf("data: %s (%zu tokens)%s\n", train_path.c_str(), train.num_tokens(),
                val ? fmt::format(", val {} ({} tokens)", val_path, val->num_tokens()).c_str() : "");
    std::printf("%s\n", gemm.line(threads).c_str());
    if (o.zero == 1) {
      std::printf("ZeRO-1: AdamW moments %.1f MB per process (%.1f MB whole)\n", optimizer.moment_bytes() / 1e6,
                  2.0 * sizeof(float) * model->num_parameters() / 1e6);
    }
    if (!gemm.warning().empty()) std::fprintf(stderr, "train: %s\n", gemm.warning().c_str());
    std::fflush(stdout);
    // One record per run (a resumed run adds its own): what ran, on what.
    log->write({{"step", start_step},
                {"run",
                 {{"gemm", gemm.line(threads)}, {"gemm_kernel", gemm.kernel}, {"cpu", describe(gemm.cpu)},
                  {"threads", threads}, {"processes", world.size()}, {"zero", o.zero},
                  {"adamw_moment_bytes_per_process", optimizer.moment_bytes()}}}});
  }

  int checkpoint_step = o.resume.empty() ? -1 : start_step;  // the step the folder's checkpoint holds
  auto last_checkpoint = [&] {
    return checkpoint_step < 0 ? fmt::format("{} holds no checkpoint of this run yet", o.out)
                               : fmt::format("the checkpoint in {} is from step {}", o.out, checkpoint_step);
  };
  auto save = [&](int steps_done, const AdamW& moments) {
    for (const float* values : {model->params_memory(), moments.m(), moments.v()}) {
      if (first_nonfinite(values, model->num_parameters()) != model->num_parameters()) {
        throw std::runtime_error(fmt::format("step {}: the parameters or AdamW moments are not finite after the "
                                             "update; stopped without saving ({})",
                                             steps_done, last_checkpoint()));
      }
    }
    try {
      check_free_space(o.out, checkpoint_bytes(model->num_parameters()),
                       fmt::format("the checkpoint of step {}", steps_done));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("{}; stopped without saving ({})", e.what(), last_checkpoint()));
    }
    TrainingProgress progress;
    progress.step = steps_done;
    progress.data_position = train.position();
    progress.rng_state = rng.state();
    progress.batch_size = o.B;
    progress.seq_len = o.T;
    progress.skipped_steps = skipped_steps;
    log->sync();
    save_checkpoint(o.out, *model, moments, progress);
    checkpoint_step = steps_done;
  };

  const auto run_start = std::chrono::steady_clock::now();
  const double tokens_per_step = double(o.B) * o.T * o.grad_accum * world.size();
  for (int step = start_step; step < o.steps; step++) {
    const auto step_start = std::chrono::steady_clock::now();
    const float lr = learning_rate(step, o.steps, o.warmup, o.lr, o.lr_min_fraction);
    double loss = 0;
    for (int micro = 0; micro < o.grad_accum; micro++) {
      train.next_batch();
      if (micro == o.grad_accum - 1) optimizer.next_backward_is_last();
      loss += forward_backward(train.inputs(), train.targets(), o.B, o.T);
    }
    // Micro-batch gradients were summed, and are summed over the processes: their mean is the
    // global batch's gradient. Every process sees the same sums, so all take the same branch below.
    const int batches = o.grad_accum * world.size();
    const double norm = optimizer.reduce_gradients() / batches;
    loss = world.sum(loss) / batches;
    if (std::isfinite(loss) && std::isfinite(norm)) {
      const float scale = clip_scale(norm, o.grad_clip) / batches;
      optimizer.update(lr, scale, step + 1);
      const double ms = seconds_since(step_start) * 1e3;
      const double elapsed = seconds_since(run_start);
      const double eta = elapsed / (step + 1 - start_step) * (o.steps - step - 1);
      if (root) std::printf("step %4d/%d | loss %.6f | lr %.2e | norm %.3f | %6.1f ms | %6.0f tok/s | ETA %s\n",
                  step + 1, o.steps, loss, lr, norm, ms, tokens_per_step / (ms / 1e3),
                  format_duration(eta).c_str());
      if (root) {
        nlohmann::json record = {{"step", step + 1}, {"loss", loss},         {"lr", lr},
                                 {"grad_norm", norm}, {"ms", ms}, {"tok_per_s", tokens_per_step / (ms / 1e3)}};
        // Under mpirun: the gradient sum's time after the backward (what --overlap did not hide).
        if (world.size() > 1) record["reduce_ms"] = optimizer.last_reduce_ms();
        log->write(record);
      }
    } else {
      // A diverged run or bad data: never an update from it. Large-scale trainers skip such a
      // step (its batch is consumed) and go on; --skip-nonfinite says how many times.
      const std::string what = fmt::format("the loss is {} and the gradient norm {}", loss, norm);
      if (skipped_steps >= o.skip_nonfinite) {
        if (root) log->write({{"step", step + 1}, {"stopped", what}});
        throw std::runtime_error(fmt::format(
            "step {}: {}; stopped without saving ({}). Lower --lr, or let --skip-nonfinite N skip such steps{}",
            step + 1, what, last_checkpoint(),
            o.skip_nonfinite > 0 ? fmt::format(" (all {} skips are used)", o.skip_nonfinite) : ""));
      }
      skipped_steps++;
      model->zero_grad();
      if (root) {
        std::printf("step %4d/%d | skipped: %s (%lld of --skip-nonfinite %d)\n", step + 1, o.steps, what.c_str(),
                    static_cast<long long>(skipped_steps), o.skip_nonfinite);
        log->write({{"step", step + 1}, {"skipped", what}, {"skipped_steps", skipped_steps}});
      }
    }
    std::fflush(stdout);

    const bool last = step + 1 == o.steps;
    const bool stop = last || step + 1 == o.stop_at;
    if (val && ((o.val_every > 0 && (step + 1) % o.val_every == 0) || last)) {
      const float val_loss = validation_loss(*model, *val, o.val_steps, world);
      if (root) {
        std::printf("step %4d/%d | val loss %.6f\n", step + 1, o.steps, val_loss);
        log->write({{"step", step + 1}, {"val_loss", val_loss}});
      }
    }
    if (root && ((o.sample_every > 0 && (step + 1) % o.sample_every == 0) || last)) {
      std::printf("--- sample at step %d ---\n%s\n---\n", step + 1,
                  sample_text(*model, tokenizer.get(), o.sample_tokens, rng).c_str());
    }
    // Saved after the sample, whose draws advance the RNG, so a run resumed from this
    // checkpoint samples as an uninterrupted one does. Every process takes part (ZeRO-1 gathers
    // the moments to rank 0, which writes).
    if ((o.checkpoint_every > 0 && (step + 1) % o.checkpoint_every == 0) || stop) {
      optimizer.with_whole_moments([&](const AdamW& moments) { save(step + 1, moments); });
    }
    if (stop) break;
  }
  if (root) std::printf("done: %s/model.bin, %s/state.bin, %s\n", o.out.c_str(), o.out.c_str(), log->path().c_str());
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
  cmd->add_option("--bpe-dir", o->bpe_dir, "Folder with encoder.json and vocab.bpe (default $ADJOINT_BPE_DIR, "
                                           "else the folder scripts/setup.sh fills)");
  cmd->add_option("--engine", o->engine,
                  "arrays (kernels over arenas) or tensor (Tensor modules, backward by adjc); validation and samples "
                  "use the engine's forward either way")
      ->check(CLI::IsMember({"arrays", "tensor"}))->capture_default_str();
  cmd->add_option("--backward", o->backward, "Arrays engine's backward: manual (hand-written) or generated (by adjc, the default when built with adjc)")
      ->check(CLI::IsMember({"manual", "generated"}))->capture_default_str()
      ->each([o](const std::string&) { o->backward_given = true; });
  cmd->add_option("-B,--batch", o->B, "Batch size")->check(whole_number(1))->capture_default_str();
  cmd->add_option("-T,--seq-len", o->T, "Sequence length")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--steps", o->steps, "Optimizer steps")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--grad-accum", o->grad_accum, "Micro-batches per step")
      ->check(whole_number(1))->capture_default_str();
  cmd->add_option("--lr", o->lr, "Peak learning rate")->check(real_number(0, INFINITY))->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Linear warmup steps")->check(whole_number(0))->capture_default_str();
  cmd->add_option("--lr-min-fraction", o->lr_min_fraction, "Final LR as a fraction of the peak (cosine)")
      ->check(real_number(0, 1))->capture_default_str();
  cmd->add_option("--beta1", o->adamw.beta1, "AdamW beta1")
      ->check(real_number(0, 1, false, true))->capture_default_str();
  cmd->add_option("--beta2", o->adamw.beta2, "AdamW beta2")
      ->check(real_number(0, 1, false, true))->capture_default_str();
  cmd->add_option("--eps", o->adamw.eps, "AdamW epsilon")->check(real_number(0, INFINITY, true))->capture_default_str();
  cmd->add_option("--weight-decay", o->adamw.weight_decay, "AdamW weight decay (2-D weights only)")
      ->check(real_number(0, INFINITY))->capture_default_str();
  cmd->add_option("--grad-clip", o->grad_clip, "Clip the global gradient norm to this (0 = off)")
      ->check(real_number(0, INFINITY))->capture_default_str();
  cmd->add_option("--skip-nonfinite", o->skip_nonfinite,
                  "Skip up to N steps whose loss or gradient norm is NaN or infinite (no update; logged as "
                  "\"skipped\"); the next one stops the run, as does the first when N is 0")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--val-every", o->val_every, "Validate every N steps (0 = only at the end)")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--val-steps", o->val_steps, "Validation batches")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--sample-every", o->sample_every, "Sample every N steps (0 = only at the end)")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--sample-tokens", o->sample_tokens, "Tokens per sample")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--checkpoint-every", o->checkpoint_every, "Save a checkpoint every N steps (0 = only at the end)")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--stop-at", o->stop_at, "Stop (with a checkpoint) after this step, as if interrupted")
      ->check(whole_number(0));
  cmd->add_option("--zero", o->zero,
                  "ZeRO stage: 0 keeps AdamW's moments whole on every process, 1 shards them over the processes "
                  "(each 1/N; gradients reduce-scattered, parameters all-gathered)")
      ->check(whole_number(0, 1))->capture_default_str();
  cmd->add_flag("--overlap", o->overlap,
                "Under mpirun, start summing each layer's gradients while the hand-written backward computes "
                "the earlier layers (the generated backward and the tensor engine sum after their backward)");
  cmd->add_option("--seed", o->seed, "Seed for initialisation and sampling")->capture_default_str();
  add_lora_flags(*cmd, o->lora);
  cmd->callback([o] { run_training(*o); });
}

}  // namespace adjoint::cli
