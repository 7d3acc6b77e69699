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

LlamaConfig config_from_header(const Header& h, const std::string& path) {
  if (h.ints[0] != kLlamaFileMagic) {
    throw std::runtime_error(path + ": not a Llama model file (magic " + std::to_string(h.ints[0]) + ", expected " +
                             std::to_string(kLlamaFileMagic) + ")");
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

// Opens path, reads its header and checks the file holds exactly the parameters it announces.
std::FILE* open_llama(const std::string& path, LlamaConfig& config) {
  std::FILE* file = open_for_reading(path);
  try {
    Header h;
    read_exact(file, &h, sizeof(h), path, "Llama header");
    config = config_from_header(h, path);
    const std::size_t expected = file_floats(config) * sizeof(float), have = file_size(file) - sizeof(Header);
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
  FileCloser closer{open_llama(path, c)};
  return c;
}

std::unique_ptr<Llama> load_llama(const std::string& path) {
  LlamaConfig c;
  FileCloser closer{open_llama(path, c)};
  auto model = std::make_unique<Llama>(c);
  read_exact(closer.file, model->params_memory(), model->num_parameters() * sizeof(float), path, "parameters");
  return model;
}

void save_llama_file(const std::string& path, const LlamaConfig& c, const float* values) {
  Header h = {};
  h.ints[0] = kLlamaFileMagic;
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
  AtomicFileWriter out(path);
  out.write(&h, sizeof(h));
  out.write(values, arena_floats(c) * sizeof(float));
  if (c.tied_head) out.write(values, (std::size_t)c.vocab_size * c.channels * sizeof(float));  // wte again
  out.commit();
}

}  // namespace adjoint
