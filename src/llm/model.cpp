// The Model interface for GPT2 and Llama: their tensor tables, files, training states and
// generators, and the model a name or a file stands for.
#include "adjoint/model.hpp"

#include <filesystem>
#include <fmt/core.h>
#include <stdexcept>

#include "adjoint/checkpoint.hpp"
#include "adjoint/file_io.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/llama_file.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/sampler.hpp"
#include "adjoint/tokenizer.hpp"

namespace adjoint {

// ---- GPT-2

std::vector<ParameterTensor> GPT2::parameter_tensors() const {
  const auto sizes = parameter_sizes(config_);
  std::vector<ParameterTensor> tensors;
  // wte, wpe, then ln1w … fcprojb with the layers' slices one after another, then lnfw, lnfb.
  for (int i = 0; i < kNumParameterTensors; i++) {
    const bool per_layer = i >= 2 && i < kNumParameterTensors - 2;
    tensors.push_back({kParameterNames[i], sizes[i], parameter_is_decayed(i), per_layer ? config_.num_layers : 0});
  }
  return tensors;
}

int GPT2::start_token() const { return GPT2Tokenizer::eot_token < config_.vocab_size ? GPT2Tokenizer::eot_token : 0; }

std::string describe(const GPT2Config& c) {
  return fmt::format("L={} NH={} C={} V={} maxT={}", c.num_layers, c.num_heads, c.channels, c.vocab_size,
                     c.max_seq_len);
}

std::string GPT2::describe() const { return adjoint::describe(config_); }

// Matmuls (backward is twice forward) and the causal attention's two batched products.
double GPT2::step_flops(int B, int T) const {
  const GPT2Config& c = config_;
  const double N = double(B) * T, C = c.channels, L = c.num_layers;
  const double matmul = 2.0 * N * (L * (3 * C * C + C * C + 4 * C * C + 4 * C * C) + C * c.padded_vocab_size);
  const double attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
  return 3.0 * (matmul + attention);
}

void GPT2::save_file(const std::string& path, const float* values) const { save_model_file(path, config_, values); }

void GPT2::save_training_state(const std::string& path, const AdamW& optimizer,
                               const TrainingProgress& progress) const {
  adjoint::save_training_state(path, *this, optimizer, progress);
}

TrainingProgress GPT2::load_training_state(const std::string& path, AdamW& optimizer) {
  return adjoint::load_training_state(path, *this, optimizer);
}

std::unique_ptr<TokenGenerator> GPT2::generator(int) const { return std::make_unique<Generator>(*this); }

// ---- Llama

std::vector<ParameterTensor> Llama::parameter_tensors() const {
  const auto sizes = parameter_sizes(config_);
  std::vector<ParameterTensor> tensors;
  for (int i = 0; i < kNumLlamaParameterTensors; i++) {
    // wte, then the layers' tensors (their slices one after another), then lnfw and lm_head.
    const bool per_layer = i >= 1 && i < kNumLlamaParameterTensors - 2;
    tensors.push_back(
        {kLlamaParameterNames[i], sizes[i], llama_parameter_is_decayed(i), per_layer ? config_.num_layers : 0});
  }
  return tensors;
}

// <|begin_of_text|> in Llama 3's vocabulary.
int Llama::start_token() const { return config_.vocab_size > 128000 ? 128000 : 0; }

std::string describe(const LlamaConfig& c) {
  return fmt::format("Llama L={} NH={} NKV={} C={} hidden={} V={} maxT={}{}", c.num_layers, c.num_heads,
                     c.num_kv_heads, c.channels, llama_hidden_size(c), c.vocab_size, c.max_seq_len,
                     c.tied_head ? " tied head" : "");
}

std::string Llama::describe() const { return adjoint::describe(config_); }

double Llama::step_flops(int B, int T) const {
  const LlamaConfig& c = config_;
  const double N = double(B) * T, C = c.channels, L = c.num_layers, H = hidden_;
  const double QKV = double(c.num_heads + 2 * c.num_kv_heads) * (c.channels / c.num_heads);
  const double matmul = 2.0 * N * (L * (QKV * C + C * C + 3 * H * C) + C * c.vocab_size);
  const double attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
  return 3.0 * (matmul + attention);
}

void Llama::save_file(const std::string& path, const float* values) const { save_llama_file(path, config_, values); }

void Llama::save_training_state(const std::string& path, const AdamW& optimizer,
                                const TrainingProgress& progress) const {
  save_llama_state(path, *this, optimizer.m(), optimizer.v(), progress);
}

TrainingProgress Llama::load_training_state(const std::string& path, AdamW& optimizer) {
  return load_llama_state(path, *this, optimizer.m(), optimizer.v());
}

std::unique_ptr<TokenGenerator> Llama::generator(int positions) const {
  return std::make_unique<LlamaGenerator>(*this, positions);
}

// ---- Which model

std::unique_ptr<Model> load_any_model(const std::string& path) {
  if (file_magic(path) == kLlamaFileMagic) return load_llama(path);
  return load_model(path);
}

std::unique_ptr<Model> model_from_name(const std::string& name, std::uint64_t seed) {
  if (is_llama_name(name)) {
    auto model = std::make_unique<Llama>(llama_config_from_name(name));
    model->init_random(seed);
    return model;
  }
  GPT2Config config;
  try {
    config = gpt2_config_from_name(name);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("unknown model '" + name +
                                "' (expected gpt2-124M, dN such as d4, llama-dN, llama3-bench, llama3.2-1B, "
                                "llama3.1-8B, or a model file)");
  }
  auto model = std::make_unique<GPT2>(config);
  model->init_random(seed);
  return model;
}

std::unique_ptr<Model> model_from_training_state(const std::string& path) {
  if (file_magic(path) == kLlamaStateMagic) return std::make_unique<Llama>(read_llama_state_config(path));
  return std::make_unique<GPT2>(read_training_state_config(path));
}

}  // namespace adjoint
