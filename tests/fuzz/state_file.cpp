// Training-state files, loaded as `train --resume` does: config, then model and AdamW moments.
#include <exception>

#include "adjoint/checkpoint.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("state.bin", data, size);
  try {
    adjoint::GPT2 model(adjoint::read_training_state_config(path));
    adjoint::AdamW optimizer(model, {});
    adjoint::load_training_state(path, model, optimizer);
  } catch (const std::exception&) {
  }
  return 0;
}
