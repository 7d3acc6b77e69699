// Model and training-state files.
#include "adjoint/checkpoint.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "adjoint/file_io.hpp"

namespace adjoint {
namespace {

namespace fs = std::filesystem;

constexpr int kHeaderInts = 256;
using Header = std::int32_t[kHeaderInts];

void put_config(Header h, const GPT2Config& c) {
  h[2] = c.max_seq_len;
  h[3] = c.vocab_size;
  h[4] = c.num_layers;
  h[5] = c.num_heads;
  h[6] = c.channels;
  h[7] = c.padded_vocab_size;
}

GPT2Config get_config(const Header h, const std::string& path) {
  GPT2Config c;
  c.max_seq_len = h[2];
  c.vocab_size = h[3];
  c.num_layers = h[4];
  c.num_heads = h[5];
  c.channels = h[6];
  c.padded_vocab_size = h[7];
  try {
    validate_config(c);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return c;
}

// Opens path and reads its header, checking magic and version.
std::FILE* open_with_header(const std::string& path, Header h, std::int32_t magic,
                            std::int32_t version, const char* kind) {
  std::FILE* file = open_for_reading(path);
  try {
    read_exact(file, h, sizeof(Header), path, "header");
    if (h[0] != magic) {
      throw std::runtime_error(path + ": not a " + kind + " (magic " + std::to_string(h[0]) +
                               ", expected " + std::to_string(magic) + ")");
    }
    if (h[1] != version) {
      throw std::runtime_error(path + ": unsupported " + kind + " version " +
                               std::to_string(h[1]) + " (expected " + std::to_string(version) +
                               ")");
    }
  } catch (...) {
    std::fclose(file);
    throw;
  }
  return file;
}

// The rest of the file must be exactly `expected` bytes: a shorter one is truncated, a longer
// one is not the file we think it is. Checked before anything of the header's size is allocated.
void check_payload_size(std::FILE* file, std::size_t expected, const std::string& path) {
  const std::size_t have = file_size(file) - sizeof(Header);  // the header was read: no underflow
  if (have < expected) {
    throw std::runtime_error(path + ": truncated file (" + std::to_string(have) + " of " +
                             std::to_string(expected) + " payload bytes)");
  }
  if (have > expected) {
    throw std::runtime_error(path + ": " + std::to_string(have - expected) +
                             " unexpected trailing bytes");
  }
}

std::size_t parameter_count(const GPT2Config& config) {
  std::size_t n = 0;
  for (std::size_t s : parameter_sizes(config)) n += s;  // validate_config's bounds keep this exact
  return n;
}

struct FileCloser {
  std::FILE* file;
  ~FileCloser() {
    if (file) std::fclose(file);
  }
};

// Throws "<path>: <what> <tensor>[<i>] is <value><why>" for values[index] (index < num_parameters()).
[[noreturn]] void throw_bad_value(const Model& model, const float* values, std::size_t index,
                                  const std::string& path, const char* what, const char* why) {
  std::size_t offset = index;
  for (const ParameterTensor& tensor : model.parameter_tensors()) {
    if (offset < tensor.size) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", double(values[index]));
      throw std::runtime_error(path + ": " + what + " " + tensor.name + "[" + std::to_string(offset) + "] is " +
                               value + why);
    }
    offset -= tensor.size;
  }
  throw std::logic_error("throw_bad_value: index past the parameters");
}

}  // namespace

void check_finite(const Model& model, const float* values, const std::string& path, const char* what) {
  const std::size_t n = model.num_parameters(), bad = first_nonfinite(values, n);
  if (bad != n) throw_bad_value(model, values, bad, path, what, "");
}

// One pass over v for both faults; the message says which the first bad value has.
void check_second_moments(const Model& model, const float* v, const std::string& path) {
  const std::size_t n = model.num_parameters(), bad = first_nonfinite_or_negative(v, n);
  if (bad == n) return;
  throw_bad_value(model, v, bad, path, "AdamW second moment of",
                  std::isfinite(v[bad]) ? ", below 0 (it is a mean of squares)" : "");
}

// Opens a model or state file (copies: the parameter-sized arrays after its header) and checks
// its header and size; returns its config.
GPT2Config open_checked(const std::string& path, FileCloser& closer, std::int32_t magic, std::int32_t version,
                        const char* kind, std::size_t copies) {
  Header h;
  closer.file = open_with_header(path, h, magic, version, kind);
  const GPT2Config config = get_config(h, path);
  check_payload_size(closer.file, copies * parameter_count(config) * sizeof(float), path);
  return config;
}

GPT2Config read_model_config(const std::string& path) {
  FileCloser closer{nullptr};
  return open_checked(path, closer, kModelFileMagic, kModelFileVersion, "model file", 1);
}

std::unique_ptr<GPT2> load_model(const std::string& path) {
  FileCloser closer{nullptr};
  auto model =
      std::make_unique<GPT2>(open_checked(path, closer, kModelFileMagic, kModelFileVersion, "model file", 1));
  read_exact(closer.file, model->params_memory(), model->num_parameters() * sizeof(float), path, "parameters");
  check_finite(*model, model->params_memory(), path, "parameter");
  return model;
}

void save_model_file(const std::string& path, const GPT2Config& config, const float* values) {
  Header h = {};
  h[0] = kModelFileMagic;
  h[1] = kModelFileVersion;
  put_config(h, config);
  const std::size_t n = parameter_count(config);
  AtomicFileWriter out(path);
  out.write(h, sizeof(h));
  out.write(values, n * sizeof(float));
  out.commit();
}

void save_training_state(const std::string& path, const GPT2& model, const AdamW& optimizer,
                         const TrainingProgress& progress) {
  Header h = {};
  h[0] = kStateFileMagic;
  h[1] = kStateFileVersion;
  put_config(h, model.config());
  static_assert(sizeof(TrainingProgress) <= (kHeaderInts - 8) * sizeof(std::int32_t));
  std::memcpy(h + 8, &progress, sizeof(progress));
  const std::size_t bytes = model.num_parameters() * sizeof(float);
  AtomicFileWriter out(path);
  out.write(h, sizeof(h));
  out.write(model.params_memory(), bytes);
  out.write(optimizer.m(), bytes);
  out.write(optimizer.v(), bytes);
  out.commit();
}

GPT2Config read_training_state_config(const std::string& path) {
  FileCloser closer{nullptr};
  return open_checked(path, closer, kStateFileMagic, kStateFileVersion, "training-state file", 3);
}

void check_progress(const TrainingProgress& progress, int max_seq_len, const std::string& path) {
  auto check = [&](const char* field, std::int64_t value, std::int64_t min, std::int64_t max) {
    if (value < min || value > max) {
      throw std::runtime_error(path + ": " + field + " " + std::to_string(value) + " is outside [" +
                               std::to_string(min) + ", " + std::to_string(max) + "]");
    }
  };
  check("step", progress.step, 0, INT_MAX - 1);
  check("batch size", progress.batch_size, 1, INT_MAX);
  check("sequence length", progress.seq_len, 1, max_seq_len);
  check("skipped steps", progress.skipped_steps, 0, progress.step);
}

TrainingProgress load_training_state(const std::string& path, GPT2& model, AdamW& optimizer) {
  FileCloser closer{nullptr};
  const GPT2Config c = open_checked(path, closer, kStateFileMagic, kStateFileVersion, "training-state file", 3);
  const GPT2Config& m = model.config();
  if (c.channels != m.channels || c.num_layers != m.num_layers || c.num_heads != m.num_heads ||
      c.vocab_size != m.vocab_size || c.max_seq_len != m.max_seq_len ||
      c.padded_vocab_size != m.padded_vocab_size) {
    throw std::runtime_error(path + ": model shape differs from the model being resumed");
  }
  Header h;
  std::fseek(closer.file, 0, SEEK_SET);
  read_exact(closer.file, h, sizeof(Header), path, "header");
  TrainingProgress progress;
  std::memcpy(static_cast<void*>(&progress), h + 8, sizeof(progress));
  check_progress(progress, c.max_seq_len, path);
  const std::size_t bytes = model.num_parameters() * sizeof(float);
  read_exact(closer.file, model.params_memory(), bytes, path, "parameters");
  read_exact(closer.file, optimizer.m(), bytes, path, "AdamW first moments");
  read_exact(closer.file, optimizer.v(), bytes, path, "AdamW second moments");
  check_finite(model, model.params_memory(), path, "parameter");
  check_finite(model, optimizer.m(), path, "AdamW first moment of");
  check_second_moments(model, optimizer.v(), path);
  return progress;
}

namespace {

constexpr const char* kLatest = "latest";

std::string checkpoint_folder_name(std::int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "checkpoint-%08lld", static_cast<long long>(step));
  return name;
}

// The folder latest points to ("" without one).
std::string latest_checkpoint(const fs::path& dir) {
  return fs::is_symlink(dir / kLatest) ? fs::read_symlink(dir / kLatest).string() : std::string();
}

// Points link at target atomically: a new symlink renamed over the old one.
void replace_symlink(const fs::path& link, const fs::path& target) {
  if (fs::is_symlink(link) && fs::read_symlink(link) == target) return;
  const fs::path tmp = link.string() + ".tmp";
  fs::remove(tmp);
  fs::create_symlink(target, tmp);
  fs::rename(tmp, link);
}

bool is_checkpoint_folder(const std::string& name) { return name.rfind("checkpoint-", 0) == 0; }

}  // namespace

std::uint64_t checkpoint_bytes(std::size_t num_parameters) {
  // Two headers of at most 1 KB (GPT-2's and Llama's files alike), parameters twice, AdamW's m and v.
  return 2 * 1024 + 4 * std::uint64_t(num_parameters) * sizeof(float);
}

void save_checkpoint(const std::string& dir, const Model& model, const AdamW& optimizer,
                     const TrainingProgress& progress) {
  const fs::path root = dir;
  const std::string name = checkpoint_folder_name(progress.step), previous = latest_checkpoint(root);
  if (name == previous) {
    throw std::logic_error(dir + " already holds the checkpoint of step " + std::to_string(progress.step));
  }
  const fs::path tmp = root / (name + ".tmp");
  fs::remove_all(tmp);
  fs::remove_all(root / name);  // left by a crash before latest pointed to it
  fs::create_directory(tmp);
  try {
    model.save_file((tmp / "model.bin").string(), model.params_memory());
    model.save_training_state((tmp / "state.bin").string(), optimizer, progress);
  } catch (...) {
    fs::remove_all(tmp);  // a full disk, say: leave the folder as it was
    throw;
  }
  fs::rename(tmp, root / name);
  // The two links go through latest and are made before it: on the first checkpoint they dangle
  // until latest appears, so a crash between them never shows one file without the other.
  replace_symlink(root / "model.bin", fs::path(kLatest) / "model.bin");
  replace_symlink(root / "state.bin", fs::path(kLatest) / "state.bin");
  sync_directory(dir);
  replace_symlink(root / kLatest, name);
  sync_directory(dir);
  if (!previous.empty()) fs::remove_all(root / previous);
}

void remove_stale_checkpoints(const std::string& dir) {
  const std::string latest = latest_checkpoint(dir);
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool temporary = name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0 &&
                           (is_checkpoint_folder(name) || name == "latest.tmp" || name == "model.bin.tmp" ||
                            name == "state.bin.tmp");
    if (temporary || (is_checkpoint_folder(name) && name != latest)) fs::remove_all(entry.path());
  }
}

void remove_checkpoint(const std::string& dir) {
  const fs::path root = dir;
  for (const char* name : {kLatest, "model.bin", "state.bin"}) fs::remove(root / name);
  remove_stale_checkpoints(dir);
}

}  // namespace adjoint
