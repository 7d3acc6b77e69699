// GPT-2 in Hugging Face folders (GPT2LMHeadModel): config.json's keys and HF's tensor names.
#include <cmath>
#include <stdexcept>

#include "../hf_folder.hpp"
#include "adjoint/bf16.hpp"
#include "adjoint/gpt2.hpp"

namespace adjoint {
namespace {

using json = nlohmann::json;

constexpr float kLayerNormEps = 1e-5f;  // our layernorm kernel's, and GPT-2's

GPT2Config gpt2_config(const HfConfig& config) {
  const int C = config.integer("n_embd", 1, 65536);
  const int NH = config.integer("n_head", 1, 65536);
  const int L = config.integer("n_layer", 1, 4096);
  const int V = config.integer("vocab_size", 1, 1 << 24);
  const int maxT =
      config.has("n_positions") ? config.integer("n_positions", 1, 1 << 24) : config.integer("n_ctx", 1, 1 << 24);
  if (C % NH != 0) config.unsupported("n_head", "must divide n_embd");
  if (config.has("layer_norm_epsilon") && std::abs(config.number("layer_norm_epsilon", 0, 1) - kLayerNormEps) > 1e-12) {
    config.unsupported("layer_norm_epsilon", "only 1e-05");
  }
  const json activation = config.values().value("activation_function", json("gelu_new"));
  if (activation != "gelu_new" && activation != "gelu_pytorch_tanh") {
    config.unsupported("activation_function", "only gelu_new, GELU's tanh approximation");
  }
  config.require("n_inner", 4 * C, "only 4 * n_embd");
  config.require("tie_word_embeddings", true, "the LM head is the token embedding");
  config.require("scale_attn_weights", true, "attention scaled by 1/sqrt(head size)");
  config.require("scale_attn_by_inverse_layer_idx", false, "no per-layer attention scaling");
  try {
    const GPT2Config c = adjoint::gpt2_config(maxT, V, L, NH, C);
    validate_config(c);
    return c;
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(config.path() + ": " + e.what());
  }
}

json hf_config(const GPT2Config& c) {
  return {{"architectures", {"GPT2LMHeadModel"}},
          {"model_type", "gpt2"},
          {"n_embd", c.channels},
          {"n_head", c.num_heads},
          {"n_layer", c.num_layers},
          {"n_positions", c.max_seq_len},
          {"n_ctx", c.max_seq_len},
          {"n_inner", nullptr},
          {"vocab_size", c.vocab_size},
          {"layer_norm_epsilon", json_float(kLayerNormEps)},
          {"activation_function", "gelu_new"},
          {"tie_word_embeddings", true},
          {"torch_dtype", "float32"}};
}

// HF's tensors over our arena; prefix "transformer." as transformers' save_pretrained writes them
// (the hub's gpt2 files have none). The padded vocabulary's rows past V stay in our arena only.
std::vector<HfTensor> hf_table(const GPT2Config& c, float* memory, const std::string& prefix) {
  const ParameterTensors p = parameter_views(memory, c);
  const std::int64_t C = c.channels;
  std::vector<HfTensor> table = {
      {prefix + "wte.weight", {c.vocab_size, C}, p.wte, HfLayout::same, 0, /*looked_up=*/true},
      {prefix + "wpe.weight", {c.max_seq_len, C}, p.wpe, HfLayout::same, 0, /*looked_up=*/true}};
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string layer = prefix + "h." + std::to_string(l) + ".";
    table.push_back({layer + "ln_1.weight", {C}, p.ln1w + l * C});
    table.push_back({layer + "ln_1.bias", {C}, p.ln1b + l * C});
    // Conv1D weights are (in, out): ours (out, in) transposed.
    table.push_back({layer + "attn.c_attn.weight", {C, 3 * C}, p.qkvw + l * 3 * C * C, HfLayout::transposed});
    table.push_back({layer + "attn.c_attn.bias", {3 * C}, p.qkvb + l * 3 * C});
    table.push_back({layer + "attn.c_proj.weight", {C, C}, p.attprojw + l * C * C, HfLayout::transposed});
    table.push_back({layer + "attn.c_proj.bias", {C}, p.attprojb + l * C});
    table.push_back({layer + "ln_2.weight", {C}, p.ln2w + l * C});
    table.push_back({layer + "ln_2.bias", {C}, p.ln2b + l * C});
    table.push_back({layer + "mlp.c_fc.weight", {C, 4 * C}, p.fcw + l * 4 * C * C, HfLayout::transposed});
    table.push_back({layer + "mlp.c_fc.bias", {4 * C}, p.fcb + l * 4 * C});
    table.push_back({layer + "mlp.c_proj.weight", {4 * C, C}, p.fcprojw + l * 4 * C * C, HfLayout::transposed});
    table.push_back({layer + "mlp.c_proj.bias", {C}, p.fcprojb + l * C});
  }
  table.push_back({prefix + "ln_f.weight", {C}, p.lnfw});
  table.push_back({prefix + "ln_f.bias", {C}, p.lnfb});
  return table;
}

// Tensors a folder may hold that the model does not use: the attention's causal-mask buffers and
// the tied head.
bool ignorable(const std::string& name) {
  return name == "lm_head.weight" || name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias");
}

}  // namespace

std::unique_ptr<GPT2> load_gpt2_folder(const std::string& dir, const HfConfig& config, bool frozen_bf16) {
  const GPT2Config c = gpt2_config(config);
  // Every file is checked before the model's memory is allocated.
  const auto weights = std::make_shared<const HfWeights>(dir);
  const std::string prefix = weights->contains("transformer.wte.weight") ? "transformer." : "";
  if (!frozen_bf16 || !weights->matrices_are_bf16()) {
    auto model = std::make_unique<GPT2>(c);
    weights->load(hf_table(c, model->params_memory(), prefix), ignorable);
    return model;
  }
  // The Conv1D weights, (in, out) in the file, become bf16 copies in our layout; the embeddings
  // (looked up; wte is also the tied head) load into the fp32 arena.
  auto model = std::make_unique<GPT2>(c, /*frozen_bf16=*/true);
  auto stand_ins = std::make_unique<Bf16Parameters>(weights);
  weights->load(hf_table(c, model->params_memory(), prefix), ignorable, stand_ins.get());
  model->keep_bf16_parameters(std::move(stand_ins));
  return model;
}

void GPT2::save_hf_folder(const std::string& dir, const float* values) const {
  // The table is only read when saving.
  save_hf_files(dir, hf_config(config_), hf_table(config_, const_cast<float*>(values), "transformer."));
}

}  // namespace adjoint
