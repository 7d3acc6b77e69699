// KV-cached generation for Llama, reusing the training kernels at one position.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "adjoint/kernels.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"

namespace adjoint {

using namespace kernels;

namespace {
// One position: x, ln, atty, proj (C each); qkv, qkvr (QKV each); fc, fc2, swiglu (H each);
// att_row (positions); logits (V).
std::size_t scratch_floats(const LlamaConfig& c, int positions) {
  const std::size_t qkv = (std::size_t)(c.num_heads + 2 * c.num_kv_heads) * (c.channels / c.num_heads);
  return 4 * (std::size_t)c.channels + 2 * qkv + 3 * (std::size_t)llama_hidden_size(c) + positions + c.vocab_size;
}
}  // namespace

LlamaGenerator::LlamaGenerator(const Llama& model, int positions) : model_(model) {
  const LlamaConfig& c = model.config();
  if (positions <= 0 || positions > c.max_seq_len) {
    throw std::invalid_argument("generation positions " + std::to_string(positions) + " out of range (1 to " +
                                std::to_string(c.max_seq_len) + ")");
  }
  positions_ = positions;
  const int hs = c.channels / c.num_heads;
  kv_cache_ = FloatArena((std::size_t)c.num_layers * positions * 2 * c.num_kv_heads * hs);
  rope_ = rope_table(c, positions);
  scratch_ = FloatArena(scratch_floats(c, positions));
}

const float* LlamaGenerator::feed(int token) {
  const LlamaConfig& c = model_.config();
  if (position_ >= positions_) {
    throw std::out_of_range("sequence is longer than the generator's " + std::to_string(positions_) + " positions");
  }
  if (token < 0 || token >= c.vocab_size) throw std::out_of_range("token id out of range");
  const int C = c.channels, NH = c.num_heads, NKV = c.num_kv_heads, hs = C / NH, H = llama_hidden_size(c);
  const int QKV = (NH + 2 * NKV) * hs, KV = 2 * NKV * hs, t = position_, half = hs / 2;
  const LlamaParameters& p = model_.params();
  float* x = scratch_.data();
  float* ln = x + C;
  float* atty = ln + C;
  float* proj = atty + C;
  float* qkv = proj + C;
  float* qkvr = qkv + QKV;
  float* fc = qkvr + QKV;
  float* fc2 = fc + H;
  float* swiglu = fc2 + H;
  float* att_row = swiglu + H;
  float* logits = att_row + positions_;
  const float* cos = rope_.data() + (std::size_t)t * half;
  const float* sin = rope_.data() + ((std::size_t)positions_ + t) * half;
  float rstd;
  // A projection (tensor: a LlamaTensor) of layer l, with the adapters' outputs.
  const LoraAdapters* adapters = model_.adapters();
  auto project = [&](float* out, const float* in, int tensor, int l, const float* weight, int n_in, int n_out) {
    matmul_forward(out, in, weight, static_cast<const float*>(nullptr), 1, n_in, n_out);
    if (adapters) adapters->add_output(tensor, l, out, in, 1);
  };

  encoder_forward(x, &token, p.wte, static_cast<const float*>(nullptr), 1, 1, C);
  for (int l = 0; l < c.num_layers; l++) {
    float* cache = kv_cache_.data() + (std::size_t)l * positions_ * KV;
    rmsnorm_forward(ln, &rstd, x, p.ln1w + l * C, 1, C, c.norm_eps);
    project(qkv, ln, kLlamaQkvw, l, p.qkvw + (std::size_t)l * QKV * C, C, QKV);
    rope_forward(qkvr, qkv, cos, sin, 1, 1, NH + NKV, NH + 2 * NKV, hs);
    std::memcpy(cache + (std::size_t)t * KV, qkvr + NH * hs, KV * sizeof(float));  // this position's k, v
    grouped_attention_forward_cached(atty, att_row, qkvr, cache, t, NH, NKV, hs);
    project(proj, atty, kLlamaAttprojw, l, p.attprojw + (std::size_t)l * C * C, C, C);
    residual_forward(x, x, proj, C);
    rmsnorm_forward(ln, &rstd, x, p.ln2w + l * C, 1, C, c.norm_eps);
    project(fc, ln, kLlamaFcw, l, p.fcw + (std::size_t)l * H * C, C, H);
    project(fc2, ln, kLlamaFc2w, l, p.fc2w + (std::size_t)l * H * C, C, H);
    swiglu_forward(swiglu, fc2, fc, H);
    project(proj, swiglu, kLlamaFcprojw, l, p.fcprojw + (std::size_t)l * H * C, H, C);
    residual_forward(x, x, proj, C);
  }
  rmsnorm_forward(ln, &rstd, x, p.lnfw, 1, C, c.norm_eps);
  matmul_forward(logits, ln, p.lm_head, static_cast<const float*>(nullptr), 1, C, c.vocab_size);
  position_++;
  return logits;
}

}  // namespace adjoint
