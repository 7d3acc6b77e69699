// Tensor Llama modules over the arrays engine's parameter layout (llm.c's Llama 3 order, per-layer stacks).
#include "adjoint/nn_llama.hpp"

namespace adjoint::nn {

LlamaViews::LlamaViews(const LlamaConfig& c, const LlamaParameters& p, const LoraAdapters* adapters)
    : blocks_(std::make_unique<LlamaBlock[]>(c.num_layers)) {
  validate_config(c);
  const int C = c.channels, V = c.vocab_size, H = llama_hidden_size(c), hs = C / c.num_heads;
  const int QKV = (c.num_heads + 2 * c.num_kv_heads) * hs;
  const std::size_t CC = std::size_t(C) * C, HC = std::size_t(H) * C;
  model_.wte.weight = tensor_view(p.wte, {V, C});
  model_.h = blocks_.get();
  model_.n_layer = c.num_layers;
  model_.ln_f = {tensor_view(p.lnfw, {C}), c.norm_eps};
  model_.lm_head.weight = tensor_view(p.lm_head, {V, C});
  for (int l = 0; l < c.num_layers; l++) {
    LlamaBlock& b = blocks_[l];
    b.ln_1 = {tensor_view(p.ln1w + l * C, {C}), c.norm_eps};
    b.attn.c_attn = {tensor_view(p.qkvw + l * std::size_t(QKV) * C, {QKV, C}), Tensor{}, adapters, kLlamaQkvw, l};
    b.attn.c_proj = {tensor_view(p.attprojw + l * CC, {C, C}), Tensor{}, adapters, kLlamaAttprojw, l};
    b.attn.n_head = c.num_heads;
    b.attn.n_kv_head = c.num_kv_heads;
    b.ln_2 = {tensor_view(p.ln2w + l * C, {C}), c.norm_eps};
    b.mlp.c_fc = {tensor_view(p.fcw + l * HC, {H, C}), Tensor{}, adapters, kLlamaFcw, l};
    b.mlp.c_fc2 = {tensor_view(p.fc2w + l * HC, {H, C}), Tensor{}, adapters, kLlamaFc2w, l};
    b.mlp.c_proj = {tensor_view(p.fcprojw + l * HC, {C, H}), Tensor{}, adapters, kLlamaFcprojw, l};
  }
}

RotaryTable::RotaryTable(const LlamaConfig& config, int positions) : table_(rope_table(config, positions)) {
  const int half = config.channels / config.num_heads / 2;
  rotary_.cos = tensor_view(table_.data(), {positions, half});
  rotary_.sin = tensor_view(table_.data() + std::size_t(positions) * half, {positions, half});
}

}  // namespace adjoint::nn
