// What `--model` means for every command: a config name (fresh random weights) or a file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/gpt2.hpp"

namespace adjoint::cli {

// A config name (gpt2_config_from_name) gives a model initialised randomly from seed; anything
// else is a model file's path (a file named like a config is read as ./NAME). Throws a one-line
// error when it is neither.
std::unique_ptr<GPT2> make_model(const std::string& spec, std::uint64_t seed);

}  // namespace adjoint::cli
