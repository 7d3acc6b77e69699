// Hugging Face model folders: config.json (LlamaForCausalLM or GPT2LMHeadModel) and the weights in
// model.safetensors, or in shards model-0000x-of-0000y.safetensors listed by
// model.safetensors.index.json. Loading maps HF's names and layouts onto our parameter arenas
// (Llama's q_proj/k_proj rows from rotate-half order to interleaved pairs, GPT-2's Conv1D (in, out)
// weights transposed, GPT-2's vocabulary padded); Model::save_hf_folder writes the inverse.
#pragma once
#include <memory>
#include <string>

#include "adjoint/model.hpp"

namespace adjoint {

// Whether path names a folder (read as a Hugging Face model folder).
bool is_hf_folder(const std::string& path);
// Whether the folder's config.json names LlamaForCausalLM (else GPT2LMHeadModel); throws the
// loader's one-line error for a missing or unsupported config.json.
bool hf_folder_is_llama(const std::string& dir);
// Loads a folder; throws a one-line error naming config.json and the key, or the safetensors file
// and the tensor, on anything it cannot use as it is (a value that is not finite included).
// frozen_bf16: for a base that will only be read (LoRA), a folder whose matrices are all BF16 keeps
// them in bf16 (adjoint/bf16.hpp) instead of converting them to fp32; other folders load as usual.
std::unique_ptr<Model> load_hf_folder(const std::string& dir, bool frozen_bf16 = false);

}  // namespace adjoint
