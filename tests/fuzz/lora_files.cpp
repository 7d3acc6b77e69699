// LoRA adapter files and training states (magic "LoRA", 20261129) for a fixed tiny Llama base,
// loaded as `adjoint merge` (the settings read from the file) and `train --resume` (rank 2, alpha 4
// on q,k) load them. What loads is finite, and no AdamW second moment is negative.
#include <exception>
#include <memory>

#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"
#include "fuzz_support.hpp"

namespace {

// maxT 8, V 7, L 2, 2 query heads of 4 on 1 key/value head, C 8, hidden 24, untied: 1056 floats.
std::unique_ptr<adjoint::Model> tiny_base() {
  adjoint::LlamaConfig c;
  c.max_seq_len = 8, c.vocab_size = 7, c.num_layers = 2, c.num_heads = 2, c.num_kv_heads = 1, c.channels = 8;
  c.multiple_of = 8;
  return std::make_unique<adjoint::Llama>(c);
}

void load_as_adapters(const std::string& path) {
  try {
    std::unique_ptr<adjoint::Model> base = tiny_base();
    const adjoint::LoraConfig config = adjoint::read_lora_config(path, *base);
    adjoint::LoraModel model(std::move(base), config, 0);
    model.load_adapters(path);
    adjoint::fuzz::require_finite(model.params_memory(), model.num_parameters());
  } catch (const std::exception&) {
  }
}

void load_as_state(const std::string& path) {
  try {
    adjoint::LoraModel model(tiny_base(), {2, 4.0f, {"q", "k"}}, 0);
    adjoint::AdamW optimizer(model, {});
    model.load_training_state(path, optimizer);
    for (const float* values : {model.params_memory(), optimizer.m(), optimizer.v()})
      adjoint::fuzz::require_finite(values, model.num_parameters());
    if (adjoint::first_nonfinite_or_negative(optimizer.v(), model.num_parameters()) != model.num_parameters()) {
      std::abort();
    }
  } catch (const std::exception&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = adjoint::fuzz::write_file("lora.bin", data, size);
  load_as_adapters(path);
  load_as_state(path);
  return 0;
}
