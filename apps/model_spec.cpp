#include "model_spec.hpp"

#include <filesystem>

namespace adjoint::cli {

std::unique_ptr<Model> make_model(const std::string& spec, std::uint64_t seed) {
  if (std::filesystem::exists(spec)) return load_any_model(spec);
  return model_from_name(spec, seed);
}

}  // namespace adjoint::cli
