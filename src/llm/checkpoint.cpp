// A run folder's checkpoint (model and training-state files of one step, swapped in atomically),
// and the checks every model's file readers share.
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
