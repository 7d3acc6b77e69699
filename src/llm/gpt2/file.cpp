// GPT-2 model files (llm.c's GPT-2 checkpoint format) and training-state files.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "adjoint/checkpoint.hpp"
#include "adjoint/file_io.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {
namespace {

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

}  // namespace

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

}  // namespace adjoint
