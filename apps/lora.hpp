// LoRA on the command line: train's --lora-* flags, the model they make, and `adjoint merge`.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/model.hpp"

namespace adjoint::cli {

struct LoraFlags {
  int rank = 0;
  float alpha = 16;
  std::string targets;     // empty: PEFT's default, q,v for Llama and qkv (c_attn) for GPT-2
  bool fp32_base = false;  // convert a BF16 base to fp32 (else it stays bf16 in memory)
  bool given = false;      // any --lora-* flag: LoRA training
};
void add_lora_flags(CLI::App& cmd, LoraFlags& flags);
// The model spec's base with fresh adapters (A seeded, B zero). Throws one line for a setting LoRA
// cannot take: bad targets, a base it does not support, a rank above a target's smaller side.
std::unique_ptr<Model> lora_model(const std::string& model_spec, const LoraFlags& flags, std::uint64_t seed);

}  // namespace adjoint::cli
