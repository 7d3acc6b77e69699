// Llama model files (llm.c's Llama 3 checkpoint layout).
#include "adjoint/llama_file.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "adjoint/file_io.hpp"

namespace adjoint {
namespace {

struct Header {
  std::int32_t ints[256];
  float floats[256];
};

struct FileCloser {
  std::FILE* file;
  ~FileCloser() { std::fclose(file); }
};

constexpr int kProgressField = 16;  // the training state's progress: int fields [16, 26)
static_assert(sizeof(TrainingProgress) <= 10 * sizeof(std::int32_t));

LlamaConfig config_from_header(const Header& h, const std::string& path, std::int32_t magic = kLlamaFileMagic) {
  if (h.ints[0] != magic) {
    throw std::runtime_error(path + ": not a Llama " +
                             (magic == kLlamaFileMagic ? "model" : "training-state") + " file (magic " +
                             std::to_string(h.ints[0]) + ", expected " + std::to_string(magic) + ")");
  }
  if (h.ints[1] == kLlamaFileVersionBf16) {
    throw std::runtime_error(path + ": bf16 Llama files (version 5) are not supported yet; write it as fp32 (version 3)");
  }
  if (h.ints[1] != kLlamaFileVersion) {
    throw std::runtime_error(path + ": unsupported Llama file version " + std::to_string(h.ints[1]) + " (expected " +
                             std::to_string(kLlamaFileVersion) + ", fp32)");
  }
  LlamaConfig c;
  c.max_seq_len = h.ints[2];
  c.vocab_size = h.ints[3];
  c.num_layers = h.ints[4];
  c.num_heads = h.ints[5];
  c.num_kv_heads = h.ints[6];
  c.channels = h.ints[7];
  c.multiple_of = h.ints[8];
  c.use_scaled_rope = h.ints[9] != 0;
  c.version_major = h.ints[10];
  c.version_minor = h.ints[11];
  c.tied_head = h.ints[12] == 1;
  if (h.ints[13] != 0) c.rope_original_context = h.ints[13];
  c.ffn_dim_multiplier = h.floats[0];
  c.norm_eps = h.floats[1];
  c.rope_theta = h.floats[2];
  if (h.floats[3] != 0) c.rope_scale_factor = h.floats[3];
  if (h.floats[4] != 0) c.rope_low_freq_factor = h.floats[4];
  if (h.floats[5] != 0) c.rope_high_freq_factor = h.floats[5];
  try {
    validate_config(c);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return c;
}

std::size_t arena_floats(const LlamaConfig& c) {
  std::size_t n = 0;
  for (std::size_t s : parameter_sizes(c)) n += s;
  return n;
}

// Floats after the header: the arena, plus the LM head slot that a tied model's arena lacks.
std::size_t file_floats(const LlamaConfig& c) {
  return arena_floats(c) + (c.tied_head ? (std::size_t)c.vocab_size * c.channels : 0);
}

// Opens path, reads its header into h and checks the file holds exactly the parameters it
// announces (a model file), or parameters and two AdamW moments (a training state).
std::FILE* open_llama(const std::string& path, LlamaConfig& config, Header& h, std::int32_t magic = kLlamaFileMagic) {
  std::FILE* file = open_for_reading(path);
  try {
    read_exact(file, &h, sizeof(h), path, "Llama header");
    config = config_from_header(h, path, magic);
    const std::size_t expected =
        (magic == kLlamaFileMagic ? file_floats(config) : 3 * arena_floats(config)) * sizeof(float);
    const std::size_t have = file_size(file) - sizeof(Header);
    if (have != expected) {
      throw std::runtime_error(path + ": " + (have < expected ? "truncated file (" : "wrong size (") +
                               std::to_string(have) + " parameter bytes, the header's model needs " +
                               std::to_string(expected) + ")");
    }
  } catch (...) {
    std::fclose(file);
    throw;
  }
  return file;
}

}  // namespace

std::int32_t file_magic(const std::string& path) {
  FileCloser closer{open_for_reading(path)};
  std::int32_t magic = 0;
  if (std::fread(&magic, sizeof(magic), 1, closer.file) != 1) return 0;
  return magic;
}

LlamaConfig read_llama_config(const std::string& path) {
  LlamaConfig c;
  Header h;
  FileCloser closer{open_llama(path, c, h)};
  return c;
}

std::unique_ptr<Llama> load_llama(const std::string& path) {
  LlamaConfig c;
  Header h;
  FileCloser closer{open_llama(path, c, h)};
  auto model = std::make_unique<Llama>(c);
  read_exact(closer.file, model->params_memory(), model->num_parameters() * sizeof(float), path, "parameters");
  check_finite(*model, model->params_memory(), path, "parameter");
  return model;
}

Header header_of(const LlamaConfig& c, std::int32_t magic) {
  Header h = {};
  h.ints[0] = magic;
  h.ints[1] = kLlamaFileVersion;
  h.ints[2] = c.max_seq_len;
  h.ints[3] = c.vocab_size;
  h.ints[4] = c.num_layers;
  h.ints[5] = c.num_heads;
  h.ints[6] = c.num_kv_heads;
  h.ints[7] = c.channels;
  h.ints[8] = c.multiple_of;
  h.ints[9] = c.use_scaled_rope;
  h.ints[10] = c.version_major;
  h.ints[11] = c.version_minor;
  h.ints[12] = c.tied_head;
  h.ints[13] = c.rope_original_context;
  h.floats[0] = c.ffn_dim_multiplier;
  h.floats[1] = c.norm_eps;
  h.floats[2] = c.rope_theta;
  h.floats[3] = c.rope_scale_factor;
  h.floats[4] = c.rope_low_freq_factor;
  h.floats[5] = c.rope_high_freq_factor;
  return h;
}

void save_llama_file(const std::string& path, const LlamaConfig& c, const float* values) {
  const Header h = header_of(c, kLlamaFileMagic);
  AtomicFileWriter out(path);
  out.write(&h, sizeof(h));
  out.write(values, arena_floats(c) * sizeof(float));
  if (c.tied_head) out.write(values, (std::size_t)c.vocab_size * c.channels * sizeof(float));  // wte again
  out.commit();
}

LlamaConfig read_llama_state_config(const std::string& path) {
  LlamaConfig c;
  Header h;
  FileCloser closer{open_llama(path, c, h, kLlamaStateMagic)};
  return c;
}

void save_llama_state(const std::string& path, const Llama& model, const float* m, const float* v,
                      const TrainingProgress& progress) {
  Header h = header_of(model.config(), kLlamaStateMagic);
  std::memcpy(h.ints + kProgressField, &progress, sizeof(progress));
  const std::size_t bytes = model.num_parameters() * sizeof(float);
  AtomicFileWriter out(path);
  out.write(&h, sizeof(h));
  out.write(model.params_memory(), bytes);
  out.write(m, bytes);
  out.write(v, bytes);
  out.commit();
}

TrainingProgress load_llama_state(const std::string& path, Llama& model, float* m, float* v) {
  LlamaConfig c;
  Header h;
  FileCloser closer{open_llama(path, c, h, kLlamaStateMagic)};
  const Header file_shape = header_of(c, 0), model_shape = header_of(model.config(), 0);
  if (std::memcmp(&file_shape, &model_shape, sizeof(Header)) != 0) {
    throw std::runtime_error(path + ": model shape differs from the model being resumed");
  }
  TrainingProgress progress;
  std::memcpy(static_cast<void*>(&progress), h.ints + kProgressField, sizeof(progress));
  check_progress(progress, c.max_seq_len, path);
  const std::size_t bytes = model.num_parameters() * sizeof(float);
  read_exact(closer.file, model.params_memory(), bytes, path, "parameters");
  read_exact(closer.file, m, bytes, path, "AdamW first moments");
  read_exact(closer.file, v, bytes, path, "AdamW second moments");
  check_finite(model, model.params_memory(), path, "parameter");
  check_finite(model, m, path, "AdamW first moment of");
  check_second_moments(model, v, path);
  return progress;
}

}  // namespace adjoint
