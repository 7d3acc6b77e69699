#include "model_spec.hpp"

#include <filesystem>

#include "adjoint/checkpoint.hpp"

namespace adjoint::cli {

std::unique_ptr<GPT2> make_model(const std::string& spec, std::uint64_t seed) {
  if (std::filesystem::exists(spec)) return load_model(spec);
  auto model = std::make_unique<GPT2>(gpt2_config_from_name(spec));
  model->init_random(seed);
  return model;
}

}  // namespace adjoint::cli
