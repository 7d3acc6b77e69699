// The model a name, a model file or a training-state file stands for (GPT-2 or Llama); each
// model's side of the Model interface is in its folder (gpt2/model.cpp, llama/model.cpp).
#include "adjoint/model.hpp"

#include <stdexcept>

#include "adjoint/checkpoint.hpp"
#include "adjoint/hf_checkpoint.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/llama_file.hpp"
#include "adjoint/lora.hpp"

namespace adjoint {

// ---- Which model

std::unique_ptr<Model> load_any_model(const std::string& path, bool frozen_bf16) {
  if (is_hf_folder(path)) return load_hf_folder(path, frozen_bf16);
  if (file_magic(path) == kLlamaFileMagic) return load_llama(path);
  if (file_magic(path) == kLoraAdapterMagic) {
    throw std::invalid_argument(path + ": LoRA adapters, not a model; `adjoint merge --model BASE --adapters " + path +
                                " --out FILE` writes the merged model");
  }
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
