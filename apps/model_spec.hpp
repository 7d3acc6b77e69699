// What `--model` means for every command: a config name (fresh random weights) or a file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/model.hpp"

namespace adjoint::cli {

// A config name (dN, gpt2-124M, llama-dN, llama3-bench, ...) gives a model initialised randomly
// from seed; anything else is a model file's path (GPT-2 or Llama, by its magic; a file named like
// a config is read as ./NAME) or a Hugging Face folder. Throws a one-line error when it is neither.
// frozen_bf16: the model will only be read (a LoRA base), so a Hugging Face folder of BF16
// matrices keeps them in bf16 (load_hf_folder).
std::unique_ptr<Model> make_model(const std::string& spec, std::uint64_t seed, bool frozen_bf16 = false);

// Whether `spec`, read as make_model reads it, is a Llama: a Llama config name, a Llama model
// file (by its magic, without loading it) or a folder whose config.json names LlamaForCausalLM. Throws make_model's one-line error when it is neither a
// config name nor a file.
bool names_llama(const std::string& spec);

}  // namespace adjoint::cli
