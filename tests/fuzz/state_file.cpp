// Training-state files, loaded as `train --resume` does: config, then model and AdamW moments,
// all finite.
#include <exception>

#include "adjoint/checkpoint.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("state.bin", data, size);
  std::unique_ptr<adjoint::GPT2> model;
  std::unique_ptr<adjoint::AdamW> optimizer;
  try {
    model = std::make_unique<adjoint::GPT2>(adjoint::read_training_state_config(path));
    optimizer = std::make_unique<adjoint::AdamW>(*model, adjoint::AdamWConfig{});
    adjoint::load_training_state(path, *model, *optimizer);
  } catch (const std::exception&) {
    return 0;
  }
  for (const float* values : {model->params_memory(), optimizer->m(), optimizer->v()})
    adjoint::fuzz::require_finite(values, model->num_parameters());
  return 0;
}
