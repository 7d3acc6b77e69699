#include "engine.hpp"

#include <stdexcept>

#include "adjoint/lora.hpp"

namespace adjoint::cli {

Engine engine_from_name(const std::string& name) {
  if (name == "arrays") return Engine::arrays;
  if (name == "tensor") return Engine::tensor;
  throw std::invalid_argument("unknown engine '" + name + "' (expected arrays or tensor)");
}

void check_backward_applies(Engine engine, bool backward_given) {
  if (engine == Engine::tensor && backward_given) {
    throw std::invalid_argument("--backward applies to --engine arrays only (the tensor engine's backward is adjc's)");
  }
}

ForwardBackward::ForwardBackward(Model& model, Engine engine, Backward backward) : model_(model), engine_(engine) {
  if (engine == Engine::tensor) {
    // With LoRA the tensor engine runs the base, whose projections add the adapters.
    auto* lora = dynamic_cast<LoraModel*>(&model);
    Model& arrays = lora ? static_cast<Model&>(lora->base()) : model;
    if (auto* gpt2 = dynamic_cast<GPT2*>(&arrays)) {
      tensor_ = std::make_unique<nn::TensorGPT2>(*gpt2);
    } else if (auto* llama = dynamic_cast<Llama*>(&arrays)) {
      tensor_ = std::make_unique<nn::TensorLlama>(*llama);
    } else {
      throw std::invalid_argument("--engine tensor runs GPT-2 and Llama models only (use --engine arrays)");
    }
  } else {
    model.use_backward(backward);
  }
}

float ForwardBackward::operator()(const int* inputs, const int* targets, int B, int T) {
  if (tensor_) return tensor_->forward_backward(inputs, targets, B, T);
  return model_.forward_backward(inputs, targets, B, T);
}

}  // namespace adjoint::cli
