// What `--model` means for every command: a config name (fresh random weights) or a file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/model.hpp"

namespace adjoint::cli {

// A model file path loads that file (GPT-2 or Llama, by its magic); otherwise the name (dN,
// gpt2-124M, llama-dN, llama3-bench, ...) gives a model initialised randomly from seed.
std::unique_ptr<Model> make_model(const std::string& spec, std::uint64_t seed);

}  // namespace adjoint::cli
