// What `--model` means for every command: a config name (fresh random weights) or a file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/gpt2.hpp"

namespace adjoint::cli {

// A model file path loads that file; otherwise the name goes to gpt2_config_from_name and
// the model is initialised randomly from seed.
std::unique_ptr<GPT2> make_model(const std::string& spec, std::uint64_t seed);

}  // namespace adjoint::cli
