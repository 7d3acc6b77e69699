#include "model_spec.hpp"

#include <filesystem>
#include <stdexcept>

#include "adjoint/checkpoint.hpp"
#include "adjoint/hf_checkpoint.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/llama_file.hpp"

namespace adjoint::cli {

namespace {

bool is_config_name(const std::string& spec) {
  if (is_llama_name(spec)) return true;
  try {
    gpt2_config_from_name(spec);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

void require_file(const std::string& spec) {
  if (!std::filesystem::exists(spec)) {
    throw std::invalid_argument("--model " + spec +
                                ": no such file, and not a config name (gpt2-124M, dN such as d4, d6, d12, llama-dN, "
                                "llama3-bench, llama3.2-1B, llama3.1-8B)");
  }
}

}  // namespace

std::unique_ptr<Model> make_model(const std::string& spec, std::uint64_t seed, bool frozen_bf16) {
  // A config name wins over a file of that name in the current folder: write ./d2 for the file.
  if (is_config_name(spec)) return model_from_name(spec, seed);
  require_file(spec);
  return load_any_model(spec, frozen_bf16);
}

bool names_llama(const std::string& spec) {
  if (is_config_name(spec)) return is_llama_name(spec);
  require_file(spec);
  return is_hf_folder(spec) ? hf_folder_is_llama(spec) : file_magic(spec) == kLlamaFileMagic;
}

}  // namespace adjoint::cli
