// Llama model files (llm.c's Llama 3 format, magic 20240803): any bytes load or give an exception,
// never a crash, an allocation larger than the file justifies, or a model holding a value that is
// not finite.
#include <exception>

#include "adjoint/llama_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("model.bin", data, size);
  std::unique_ptr<adjoint::Llama> model;
  try {
    adjoint::read_llama_config(path);
    model = adjoint::load_llama(path);
  } catch (const std::exception&) {
    return 0;
  }
  adjoint::fuzz::require_finite(model->params_memory(), model->num_parameters());
  return 0;
}
