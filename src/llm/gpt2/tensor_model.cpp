// Tensor GPT-2 modules over the arrays engine's parameter layout (llm.c's order, per-layer stacks).
#include "adjoint/nn.hpp"

namespace adjoint::nn {

GPT2Views::GPT2Views(const GPT2Config& c, const ParameterTensors& p, const LoraAdapters* adapters)
    : blocks_(std::make_unique<Block[]>(c.num_layers)) {
  validate_config(c);
  const int C = c.channels;
  model_.wte.weight = tensor_view(p.wte, {c.padded_vocab_size, C});
  model_.wpe.weight = tensor_view(p.wpe, {c.max_seq_len, C});
  model_.h = blocks_.get();
  model_.n_layer = c.num_layers;
  model_.ln_f = {tensor_view(p.lnfw, {C}), tensor_view(p.lnfb, {C})};
  model_.vocab_size = c.vocab_size;
  for (int l = 0; l < c.num_layers; l++) {
    const std::size_t cc = std::size_t(C) * C;
    Block& b = blocks_[l];
    b.ln_1 = {tensor_view(p.ln1w + l * C, {C}), tensor_view(p.ln1b + l * C, {C})};
    b.attn.c_attn = {tensor_view(p.qkvw + l * 3 * cc, {3 * C, C}), tensor_view(p.qkvb + l * 3 * C, {3 * C}), adapters,
                     kGpt2Qkvw, l};
    b.attn.c_proj = {tensor_view(p.attprojw + l * cc, {C, C}), tensor_view(p.attprojb + l * C, {C}), adapters,
                     kGpt2Attprojw, l};
    b.attn.n_head = c.num_heads;
    b.ln_2 = {tensor_view(p.ln2w + l * C, {C}), tensor_view(p.ln2b + l * C, {C})};
    b.mlp.c_fc = {tensor_view(p.fcw + l * 4 * cc, {4 * C, C}), tensor_view(p.fcb + l * 4 * C, {4 * C}), adapters,
                  kGpt2Fcw, l};
    b.mlp.c_proj = {tensor_view(p.fcprojw + l * 4 * cc, {C, 4 * C}), tensor_view(p.fcprojb + l * C, {C}), adapters,
                    kGpt2Fcprojw, l};
  }
}

}  // namespace adjoint::nn
