// Llama training-state files (magic 20261124), loaded as `train --resume` does: the model the file
// holds the shape of, then its parameters, AdamW moments and progress. What loads is finite.
#include <exception>

#include "adjoint/checkpoint.hpp"
#include "adjoint/model.hpp"
#include "adjoint/optimizer.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("state.bin", data, size);
  std::unique_ptr<adjoint::Model> model;
  std::unique_ptr<adjoint::AdamW> optimizer;
  try {
    model = adjoint::model_from_training_state(path);
    optimizer = std::make_unique<adjoint::AdamW>(*model, adjoint::AdamWConfig{});
    model->load_training_state(path, *optimizer);
  } catch (const std::exception&) {
    return 0;
  }
  for (const float* values : {model->params_memory(), optimizer->m(), optimizer->v()})
    adjoint::fuzz::require_finite(values, model->num_parameters());
  return 0;
}
