// Model files (llm.c's format): any bytes load or give an exception, never a crash or an
// allocation larger than the file justifies (run with -malloc_limit_mb) or a value that is not finite.
#include <exception>

#include "adjoint/checkpoint.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("model.bin", data, size);
  std::unique_ptr<adjoint::GPT2> model;
  try {
    adjoint::read_model_config(path);
    model = adjoint::load_model(path);
  } catch (const std::exception&) {
    return 0;
  }
  adjoint::fuzz::require_finite(model->params_memory(), model->num_parameters());
  return 0;
}
