#include "model_spec.hpp"

#include <filesystem>
#include <stdexcept>

#include "adjoint/checkpoint.hpp"

namespace adjoint::cli {

namespace {

bool is_config_name(const std::string& spec) {
  try {
    gpt2_config_from_name(spec);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

std::unique_ptr<GPT2> make_model(const std::string& spec, std::uint64_t seed) {
  // A config name wins over a file of that name in the current folder: write ./d2 for the file.
  if (!is_config_name(spec)) {
    if (!std::filesystem::exists(spec)) {
      throw std::invalid_argument("--model " + spec +
                                  ": no such file, and not a config name (gpt2-124M, or dN such as d4, d6, d12)");
    }
    return load_model(spec);
  }
  auto model = std::make_unique<GPT2>(gpt2_config_from_name(spec));
  model->init_random(seed);
  return model;
}

}  // namespace adjoint::cli
