// Llama in Hugging Face folders (LlamaForCausalLM): config.json's keys and HF's tensor names.
#include <cmath>
#include <stdexcept>

#include "../hf_folder.hpp"
#include "adjoint/bf16.hpp"
#include "adjoint/llama.hpp"

namespace adjoint {
namespace {

using json = nlohmann::json;

// Meta's multiple_of and ffn_dim_multiplier are not in config.json, only their result
// intermediate_size; ours carries them (with llm.c's version fields) in this key so that an llm.c
// file converted to a folder and back is the same file.
constexpr const char* kLlmcHeaderKey = "adjoint_llmc_header";

void read_rope_scaling(const HfConfig& config, LlamaConfig& c) {
  if (!config.has("rope_scaling")) return;
  const json& scaling = config.values()["rope_scaling"];
  const json type = scaling.is_object() ? scaling.value("rope_type", scaling.value("type", json())) : json();
  if (type != "llama3") config.unsupported("rope_scaling", "only rope_type llama3");
  auto number = [&](const char* key, double lo, double hi) {
    if (!scaling.contains(key) || !scaling[key].is_number() ||
        !(scaling[key].get<double>() >= lo && scaling[key].get<double>() <= hi)) {
      throw std::runtime_error(config.path() + ": rope_scaling." + key + " is missing or outside [" + json(lo).dump() +
                               ", " + json(hi).dump() + "]");
    }
    return scaling[key].get<double>();
  };
  c.use_scaled_rope = true;
  c.rope_scale_factor = float(number("factor", 1, 1e6));
  c.rope_low_freq_factor = float(number("low_freq_factor", 1e-6, 1e6));
  c.rope_high_freq_factor = float(number("high_freq_factor", 1e-6, 1e6));
  c.rope_original_context = int(number("original_max_position_embeddings", 1, 1 << 24));
}

// intermediate_size as multiple_of and ffn_dim_multiplier: ours when the key above has them, else
// multiple_of = intermediate_size and a multiplier that rounds up to it.
void read_hidden_size(const HfConfig& config, LlamaConfig& c) {
  const int hidden = config.integer("intermediate_size", 1, 65536);
  const json header = config.values().value(kLlmcHeaderKey, json::object());
  if (header.is_object() && header.contains("multiple_of") && header.contains("ffn_dim_multiplier") &&
      header.contains("version") && header["multiple_of"].is_number_integer() &&
      header["ffn_dim_multiplier"].is_number() && header["version"].is_array() && header["version"].size() == 2 &&
      header["version"][0].is_number_integer() && header["version"][1].is_number_integer()) {
    LlamaConfig recorded = c;
    recorded.multiple_of = header["multiple_of"].get<int>();
    recorded.ffn_dim_multiplier = header["ffn_dim_multiplier"].get<float>();
    recorded.version_major = header["version"][0].get<int>();
    recorded.version_minor = header["version"][1].get<int>();
    if (recorded.multiple_of > 0 && recorded.multiple_of <= 65536 && recorded.ffn_dim_multiplier > 0 &&
        recorded.ffn_dim_multiplier < 64 && llama_hidden_size(recorded) == hidden) {
      c = recorded;
      return;
    }
  }
  const int meta = int(2 * (4 * std::int64_t(c.channels)) / 3);
  c.multiple_of = hidden;
  c.ffn_dim_multiplier = hidden < meta ? float(hidden) / float(meta) : 1.0f;
  if (llama_hidden_size(c) != hidden) config.unsupported("intermediate_size", "not reachable from hidden_size");
}

LlamaConfig llama_config(const HfConfig& config) {
  LlamaConfig c;
  c.channels = config.integer("hidden_size", 2, 65536);
  c.num_heads = config.integer("num_attention_heads", 1, 65536);
  c.num_kv_heads = config.integer("num_key_value_heads", 1, 65536, c.num_heads);
  c.num_layers = config.integer("num_hidden_layers", 1, 4096);
  c.vocab_size = config.integer("vocab_size", 1, 1 << 24);
  c.max_seq_len = config.integer("max_position_embeddings", 1, 1 << 24);
  c.norm_eps = float(config.number("rms_norm_eps", 0, 1, 1e-6));  // transformers' defaults
  c.rope_theta = float(config.number("rope_theta", 1, 1e30, 10000.0));
  c.tied_head = config.flag("tie_word_embeddings", false);
  if (c.num_heads % c.num_kv_heads != 0) config.unsupported("num_key_value_heads", "must divide num_attention_heads");
  if (c.channels % c.num_heads != 0 || c.channels / c.num_heads % 2 != 0) {
    config.unsupported("hidden_size", "must be num_attention_heads times an even head size");
  }
  config.require("head_dim", c.channels / c.num_heads, "must be hidden_size / num_attention_heads");
  config.require("hidden_act", "silu", "only silu");
  config.require("attention_bias", false, "no biases");
  config.require("mlp_bias", false, "no biases");
  read_rope_scaling(config, c);
  read_hidden_size(config, c);
  try {
    validate_config(c);
  } catch (const std::exception& e) {
    throw std::runtime_error(config.path() + ": " + e.what());
  }
  return c;
}

json hf_config(const LlamaConfig& c) {
  json config = {{"architectures", {"LlamaForCausalLM"}},
                 {"model_type", "llama"},
                 {"hidden_size", c.channels},
                 {"intermediate_size", llama_hidden_size(c)},
                 {"num_attention_heads", c.num_heads},
                 {"num_key_value_heads", c.num_kv_heads},
                 {"num_hidden_layers", c.num_layers},
                 {"head_dim", c.channels / c.num_heads},
                 {"vocab_size", c.vocab_size},
                 {"max_position_embeddings", c.max_seq_len},
                 {"rms_norm_eps", json_float(c.norm_eps)},
                 {"rope_theta", json_float(c.rope_theta)},
                 {"rope_scaling", nullptr},
                 {"tie_word_embeddings", c.tied_head},
                 {"hidden_act", "silu"},
                 {"attention_bias", false},
                 {"mlp_bias", false},
                 {"torch_dtype", "float32"},
                 {kLlmcHeaderKey,
                  {{"multiple_of", c.multiple_of},
                   {"ffn_dim_multiplier", json_float(c.ffn_dim_multiplier)},
                   {"version", {c.version_major, c.version_minor}}}}};
  if (c.use_scaled_rope) {
    config["rope_scaling"] = {{"rope_type", "llama3"},
                              {"factor", json_float(c.rope_scale_factor)},
                              {"low_freq_factor", json_float(c.rope_low_freq_factor)},
                              {"high_freq_factor", json_float(c.rope_high_freq_factor)},
                              {"original_max_position_embeddings", c.rope_original_context}};
  }
  return config;
}

// HF's tensors over our arena (memory: parameters or gradients laid out for c).
std::vector<HfTensor> hf_table(const LlamaConfig& c, float* memory) {
  const LlamaParameters p = parameter_views(memory, c);
  const std::int64_t C = c.channels, hs = C / c.num_heads, H = llama_hidden_size(c), V = c.vocab_size;
  const std::int64_t NH = c.num_heads, NKV = c.num_kv_heads, QKV = (NH + 2 * NKV) * hs;
  std::vector<HfTensor> table = {{"model.embed_tokens.weight", {V, C}, p.wte, HfLayout::same, 0, /*looked_up=*/true}};
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string layer = "model.layers." + std::to_string(l) + ".";
    float* qkv = p.qkvw + l * QKV * C;
    table.push_back({layer + "input_layernorm.weight", {C}, p.ln1w + l * C});
    table.push_back({layer + "self_attn.q_proj.weight", {NH * hs, C}, qkv, HfLayout::rope_permuted, int(NH)});
    table.push_back(
        {layer + "self_attn.k_proj.weight", {NKV * hs, C}, qkv + NH * hs * C, HfLayout::rope_permuted, int(NKV)});
    table.push_back({layer + "self_attn.v_proj.weight", {NKV * hs, C}, qkv + (NH + NKV) * hs * C});
    table.push_back({layer + "self_attn.o_proj.weight", {C, C}, p.attprojw + l * C * C});
    table.push_back({layer + "post_attention_layernorm.weight", {C}, p.ln2w + l * C});
    table.push_back({layer + "mlp.gate_proj.weight", {H, C}, p.fc2w + l * H * C});
    table.push_back({layer + "mlp.up_proj.weight", {H, C}, p.fcw + l * H * C});
    table.push_back({layer + "mlp.down_proj.weight", {C, H}, p.fcprojw + l * C * H});
  }
  table.push_back({"model.norm.weight", {C}, p.lnfw});
  if (!c.tied_head) table.push_back({"lm_head.weight", {V, C}, p.lm_head});
  return table;
}

// Tensors a folder may hold that the model does not use: older exports' RoPE buffers, and a tied
// head written out anyway.
bool ignorable(const std::string& name) {
  return name == "lm_head.weight" || name.ends_with(".self_attn.rotary_emb.inv_freq");
}

}  // namespace

std::unique_ptr<Llama> load_llama_folder(const std::string& dir, const HfConfig& config, bool frozen_bf16) {
  const LlamaConfig c = llama_config(config);
  // Every file is checked before the model's memory is allocated.
  const auto weights = std::make_shared<const HfWeights>(dir);
  if (!frozen_bf16 || !weights->matrices_are_bf16()) {
    auto model = std::make_unique<Llama>(c);
    weights->load(hf_table(c, model->params_memory()), ignorable);
    return model;
  }
  // The mapped files live as long as the stand-ins; q, k and v are copied into one qkvw block.
  auto model = std::make_unique<Llama>(c, /*frozen_bf16=*/true);
  auto stand_ins = std::make_unique<Bf16Parameters>(weights);
  stand_ins->copy(model->params().qkvw, parameter_sizes(c)[kLlamaQkvw]);
  weights->load(hf_table(c, model->params_memory()), ignorable, stand_ins.get());
  model->keep_bf16_parameters(std::move(stand_ins));
  return model;
}

void Llama::save_hf_folder(const std::string& dir, const float* values) const {
  // The table is only read when saving.
  save_hf_files(dir, hf_config(config_), hf_table(config_, const_cast<float*>(values)));
}

}  // namespace adjoint
