// KV-cached generation, reusing the training kernels at one position.
#include "adjoint/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "adjoint/kernels.hpp"
#include "adjoint/lora.hpp"

namespace adjoint {

using namespace kernels;

namespace {
// Scratch layout for one position: x, ln, atty, proj (C each); fch, fch_gelu (4C each);
// att_row (maxT); logits (Vp).
std::size_t scratch_floats(const GPT2Config& c) {
  return 4 * (std::size_t)c.channels + 8 * (std::size_t)c.channels + c.max_seq_len + 2 +
         c.padded_vocab_size;
}
}  // namespace

Generator::Generator(const GPT2& model, int positions)
    : model_(model),
      positions_(positions > 0 && positions < model.config().max_seq_len ? positions : model.config().max_seq_len),
      qkv_cache_((std::size_t)model.config().num_layers * positions_ * 3 * model.config().channels),
      scratch_(scratch_floats(model.config())) {}

const float* Generator::feed(int token) {
  const GPT2Config& cfg = model_.config();
  if (position_ >= positions_) {
    throw std::out_of_range("sequence is longer than the " + std::to_string(positions_) + " positions cached");
  }
  if (token < 0 || token >= cfg.vocab_size) throw std::out_of_range("token id out of range");
  const int C = cfg.channels, NH = cfg.num_heads, t = position_;
  const ParameterTensors& p = model_.params();
  float* x = scratch_.data();
  float* ln = x + C;
  float* atty = ln + C;
  float* proj = atty + C;
  float* fch = proj + C;
  float* fch_gelu = fch + 4 * C;
  float* att_row = fch_gelu + 4 * C;
  float* logits = att_row + cfg.max_seq_len + 2;
  float mean, rstd;
  // A projection (tensor: a GPT2Tensor) of layer l, with the adapters' outputs.
  const LoraAdapters* adapters = model_.adapters();
  auto project = [&](float* out, const float* in, int tensor, int l, const float* weight, const float* bias, int n_in,
                     int n_out) {
    matmul_forward(out, in, weight, bias, 1, n_in, n_out);
    if (adapters) adapters->add_output(tensor, l, out, in, 1);
  };

  encoder_forward(x, &token, p.wte, p.wpe + (std::size_t)t * C, 1, 1, C);
  for (int l = 0; l < cfg.num_layers; l++) {
    float* cache = qkv_cache_.data() + (std::size_t)l * positions_ * 3 * C;
    layernorm_forward(ln, &mean, &rstd, x, p.ln1w + l * C, p.ln1b + l * C, 1, C);
    project(cache + (std::size_t)t * 3 * C, ln, kGpt2Qkvw, l, p.qkvw + (std::size_t)l * 3 * C * C, p.qkvb + l * 3 * C,
            C, 3 * C);
    attention_forward_position(atty, att_row, cache, t, C, NH);
    project(proj, atty, kGpt2Attprojw, l, p.attprojw + (std::size_t)l * C * C, p.attprojb + l * C, C, C);
    residual_forward(x, x, proj, C);
    layernorm_forward(ln, &mean, &rstd, x, p.ln2w + l * C, p.ln2b + l * C, 1, C);
    project(fch, ln, kGpt2Fcw, l, p.fcw + (std::size_t)l * 4 * C * C, p.fcb + l * 4 * C, C, 4 * C);
    gelu_forward(fch_gelu, fch, 4 * C);
    project(proj, fch_gelu, kGpt2Fcprojw, l, p.fcprojw + (std::size_t)l * 4 * C * C, p.fcprojb + l * C, 4 * C, C);
    residual_forward(x, x, proj, C);
  }
  layernorm_forward(ln, &mean, &rstd, x, p.lnfw, p.lnfb, 1, C);
  matmul_forward(logits, ln, p.wte, static_cast<const float*>(nullptr), 1, C,
                 cfg.padded_vocab_size);
  position_++;
  return logits;
}

int sample_token(const float* logits, int V, float temperature, int top_k, Rng& rng) {
  if (temperature <= 0.0f) return int(std::max_element(logits, logits + V) - logits);
  // Candidates: all tokens, or the top_k largest logits.
  thread_local std::vector<int> order;
  order.resize(V);
  std::iota(order.begin(), order.end(), 0);
  int count = V;
  if (top_k > 0 && top_k < V) {
    std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                      [&](int a, int b) { return logits[a] > logits[b]; });
    count = top_k;
  }
  float maxval = -INFINITY;
  for (int i = 0; i < count; i++) maxval = std::max(maxval, logits[order[i]]);
  double sum = 0;
  for (int i = 0; i < count; i++) sum += std::exp((logits[order[i]] - maxval) / temperature);
  const double r = rng.uniform() * sum;
  double cdf = 0;
  for (int i = 0; i < count; i++) {
    cdf += std::exp((logits[order[i]] - maxval) / temperature);
    if (r < cdf) return order[i];
  }
  return order[count - 1];
}

}  // namespace adjoint
