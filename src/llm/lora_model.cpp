// LoraModel: a frozen base with LoRA adapters attached, as the Model training sees (adjoint/lora.hpp).
#include <cstring>
#include <fmt/core.h>
#include <stdexcept>

#include "adjoint/bf16.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {

namespace {

// The adapters for base (a Llama or a GPT-2), checked against config.
std::unique_ptr<LoraAdapters> adapters_for(const Model& base, const LoraConfig& config, std::uint64_t seed) {
  if (const auto* llama = dynamic_cast<const Llama*>(&base)) {
    return std::make_unique<LoraAdapters>(llama_lora_sites(llama->config(), config), llama->config().num_layers, config,
                                          seed);
  }
  const GPT2Config& gpt2 = dynamic_cast<const GPT2&>(base).config();
  return std::make_unique<LoraAdapters>(gpt2_lora_sites(gpt2, config), gpt2.num_layers, config, seed);
}

// The causal attention's two batched products in a forward (Q·Kᵀ and P·V), as the models'
// step_flops count them: 2·2·B·T(T+1)/2·C a layer.
double attention_forward_flops(const Model& base, int B, int T) {
  const auto* llama = dynamic_cast<const Llama*>(&base);
  const int L = llama ? llama->config().num_layers : dynamic_cast<const GPT2&>(base).config().num_layers;
  const int C = llama ? llama->config().channels : dynamic_cast<const GPT2&>(base).config().channels;
  return double(L) * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
}

}  // namespace

LoraModel::StepFlops LoraModel::flops_of_parts(int B, int T) const {
  // The base's step_flops is 3 · (products + attention): a forward and a backward at twice its FLOPs.
  const double attention = attention_forward_flops(*base_, B, T);
  const double products = base_->step_flops(B, T) / 3.0 - attention;
  double adapters = 0;
  for (const LoraSite& site : adapters_->sites()) {
    adapters += 6.0 * B * T * adapters_->config().rank * (site.in + site.out) * adapters_->layers();
  }
  return {products + attention, products + 2.0 * attention, adapters};
}

double LoraModel::step_flops(int B, int T) const {
  const StepFlops parts = flops_of_parts(B, T);
  return parts.frozen_forward + parts.input_backward + parts.adapters;
}

double LoraModel::frozen_parameter_bytes(bool read_by_forward) const {
  const auto* llama = dynamic_cast<const Llama*>(base_.get());
  const bool embedding_is_head = !llama || llama->config().tied_head;  // GPT-2's head is always wte
  double bytes = 0;
  const float* at = base_->params_memory();
  for (const ParameterTensor& t : base_->parameter_tensors()) {
    const bool token_embedding = at == base_->params_memory();  // the first tensor of both models
    if (!(read_by_forward && token_embedding && !embedding_is_head)) {
      bytes += double(t.size) * (registered_bf16(at) ? 2.0 : 4.0);
    }
    at += t.size;
  }
  return bytes;
}

LoraModel::LoraModel(std::unique_ptr<Model> base, const LoraConfig& config, std::uint64_t seed)
    : adapters_(adapters_for(*base, config, seed)) {
  base_.reset(static_cast<ArenaModel*>(base.release()));  // a Llama or GPT-2: adapters_for checked it
  base_->attach_adapters(adapters_.get());
}

LoraModel::~LoraModel() = default;

std::string LoraModel::describe() const {
  const LoraConfig& c = adapters_->config();
  std::string targets;
  for (const std::string& t : c.targets) targets += (targets.empty() ? "" : ",") + t;
  return fmt::format("{}; LoRA r={} alpha={} on {}{}", base_->describe(), c.rank, c.alpha, targets,
                     base_->bf16_parameters() ? "; frozen matrices in bf16" : "");
}

float LoraModel::forward(const int* inputs, const int* targets, int B, int T) {
  return base_->forward(inputs, targets, B, T);
}

float LoraModel::forward_backward(const int* inputs, const int* targets, int B, int T) {
  return base_->forward_backward(inputs, targets, B, T);
}

// The base's hand-written backward completes layer l's adapters with its layer l.
void LoraModel::on_layer_backward(std::function<void(int layer)> hook) { base_->on_layer_backward(std::move(hook)); }

void LoraModel::zero_grad() { std::memset(grads_memory(), 0, num_parameters() * sizeof(float)); }

void LoraModel::save_hf_folder(const std::string& dir, const float*) const {
  throw std::invalid_argument(dir + ": LoRA adapters are written as their own file; `adjoint merge` writes the "
                                    "merged model as a Hugging Face folder");
}

std::unique_ptr<TokenGenerator> LoraModel::generator(int positions) const { return base_->generator(positions); }

std::unique_ptr<Model> LoraModel::release_merged() {
  if (base_->bf16_parameters()) throw std::logic_error("merging needs the base in fp32 (load it without frozen_bf16)");
  base_->attach_adapters(nullptr);
  adapters_->merge_into(base_->params_memory());
  adapters_.reset();
  return std::move(base_);
}

}  // namespace adjoint
