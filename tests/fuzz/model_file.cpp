// Model files (llm.c's format): any bytes load or give an exception, never a crash or an
// allocation larger than the file justifies (run with -malloc_limit_mb).
#include <exception>

#include "adjoint/checkpoint.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("model.bin", data, size);
  try {
    adjoint::read_model_config(path);
    adjoint::load_model(path);
  } catch (const std::exception&) {
  }
  return 0;
}
