// The tensor GPT-2's backward written by hand: gpt2_loss's forward with every intermediate
// kept, then each op's pullback in reverse order. The tests' reference for the generated one.
#include "gpt2_backward_by_hand.hpp"

#include <vector>

namespace adjoint::nn {

using namespace adjoint::custom_derivatives;

namespace {

// What one block's backward reads from its forward.
struct BlockActivations {
  Tensor x, ln1, qkv, att, proj, y, ln2, fc, act, mlp;
};

}  // namespace

float gpt2_loss_backward_by_hand(const GPT2& m, GPT2& g, const int* idx, const int* targets, int B, int T) {
  const Tensor tok = embedding(m.wte.weight, idx, B, T);
  const Tensor pos = m.wpe.weight.slice(0, 0, T);
  Tensor x = tok + pos;
  // Reused from step to step, so that a warm step does not allocate.
  static thread_local std::vector<BlockActivations> acts;
  acts.resize(m.n_layer);
  for (int l = 0; l < m.n_layer; l++) {
    const Block& b = m.h[l];
    BlockActivations& a = acts[l];
    a.x = x;
    a.ln1 = b.ln_1.forward(a.x);
    a.qkv = b.attn.c_attn.forward(a.ln1, Tensor{});
    a.att = causal_attention(a.qkv, b.attn.n_head);
    a.proj = b.attn.c_proj.forward(a.att, Tensor{});
    a.y = a.x + a.proj;
    a.ln2 = b.ln_2.forward(a.y);
    a.fc = b.mlp.c_fc.forward(a.ln2, Tensor{});
    a.act = gelu(a.fc);
    a.mlp = b.mlp.c_proj.forward(a.act, Tensor{});
    x = a.y + a.mlp;
  }
  const Tensor lnf = m.ln_f.forward(x);
  const Tensor logits = linear(lnf, m.wte.weight, Tensor{});
  const float loss = cross_entropy(logits, targets, m.vocab_size);

  Tensor d_logits, d_lnf, d_x;
  cross_entropy_pullback(logits, targets, m.vocab_size, 1.0f, &d_logits);
  linear_pullback(lnf, m.wte.weight, Tensor{}, d_logits, &d_lnf, &g.wte.weight, nullptr);
  layernorm_pullback(x, m.ln_f.weight, m.ln_f.bias, d_lnf, &d_x, &g.ln_f.weight, &g.ln_f.bias);
  for (int l = m.n_layer - 1; l >= 0; l--) {
    const Block& b = m.h[l];
    Block& gb = g.h[l];
    const BlockActivations& a = acts[l];
    Tensor d_y, d_mlp, d_act, d_fc, d_ln2, d_in, d_proj, d_att, d_qkv, d_ln1;
    operator_plus_pullback(a.y, a.mlp, d_x, &d_y, &d_mlp);
    linear_pullback(a.act, b.mlp.c_proj.weight, b.mlp.c_proj.bias, d_mlp, &d_act, &gb.mlp.c_proj.weight,
                    &gb.mlp.c_proj.bias);
    gelu_pullback(a.fc, d_act, &d_fc);
    linear_pullback(a.ln2, b.mlp.c_fc.weight, b.mlp.c_fc.bias, d_fc, &d_ln2, &gb.mlp.c_fc.weight, &gb.mlp.c_fc.bias);
    layernorm_pullback(a.y, b.ln_2.weight, b.ln_2.bias, d_ln2, &d_y, &gb.ln_2.weight, &gb.ln_2.bias);
    operator_plus_pullback(a.x, a.proj, d_y, &d_in, &d_proj);
    linear_pullback(a.att, b.attn.c_proj.weight, b.attn.c_proj.bias, d_proj, &d_att, &gb.attn.c_proj.weight,
                    &gb.attn.c_proj.bias);
    causal_attention_pullback(a.qkv, b.attn.n_head, d_att, &d_qkv);
    linear_pullback(a.ln1, b.attn.c_attn.weight, b.attn.c_attn.bias, d_qkv, &d_ln1, &gb.attn.c_attn.weight,
                    &gb.attn.c_attn.bias);
    layernorm_pullback(a.x, b.ln_1.weight, b.ln_1.bias, d_ln1, &d_in, &gb.ln_1.weight, &gb.ln_1.bias);
    d_x = d_in;
  }
  Tensor d_tok, d_pos;
  operator_plus_pullback(tok, pos, d_x, &d_tok, &d_pos);
  embedding_pullback(m.wte.weight, idx, B, T, d_tok, &g.wte.weight);
  class_functions::slice_pullback(&m.wpe.weight, 0, 0, T, d_pos, &g.wpe.weight);
  return loss;
}

}  // namespace adjoint::nn
