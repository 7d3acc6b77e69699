// The Llama 3 model over the kernels, with the hand-written backward pass, and its side of the
// Model interface (tensor table, files, training state, generator).
#include "adjoint/llama.hpp"

#include <cmath>
#include <cstring>
#include <fmt/core.h>
#include <stdexcept>
#include <string>

#include "adjoint/kernels.hpp"
#include "adjoint/llama_file.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"
#include "../layout.hpp"

namespace adjoint {

using namespace kernels;

int llama_hidden_size(const LlamaConfig& c) {
  int hidden = int(2 * (4 * c.channels) / 3);
  hidden = int(c.ffn_dim_multiplier * hidden);
  return c.multiple_of * ((hidden + c.multiple_of - 1) / c.multiple_of);
}

bool is_llama_name(const std::string& name) { return name.rfind("llama", 0) == 0; }

LlamaConfig llama_config_from_name(const std::string& name) {
  LlamaConfig c;
  c.vocab_size = 128256;
  c.multiple_of = 256;
  c.norm_eps = 1e-5f;
  c.rope_theta = 500000.0f;
  if (name == "llama3-bench") {
    c.max_seq_len = 1024;
    c.num_layers = 12, c.num_heads = 12, c.num_kv_heads = 4, c.channels = 768;
    c.tied_head = true;
    return c;
  }
  if (name == "llama3.2-1B") {
    c.max_seq_len = 131072;
    c.num_layers = 16, c.num_heads = 32, c.num_kv_heads = 8, c.channels = 2048;
    c.ffn_dim_multiplier = 1.5f;
    c.use_scaled_rope = true;
    c.rope_scale_factor = 32.0f;
    c.tied_head = true;
    c.version_minor = 2;
    return c;
  }
  if (name == "llama3.1-8B") {
    c.max_seq_len = 131072;
    c.num_layers = 32, c.num_heads = 32, c.num_kv_heads = 8, c.channels = 4096;
    c.multiple_of = 1024;
    c.ffn_dim_multiplier = 1.3f;
    c.use_scaled_rope = true;
    c.rope_scale_factor = 8.0f;
    return c;
  }
  const std::string digits = name.size() > 7 ? name.substr(7) : "";
  if (name.rfind("llama-d", 0) == 0 && !digits.empty() && digits.size() < 4 &&
      digits.find_first_not_of("0123456789") == std::string::npos && std::stoi(digits) > 0) {
    const int depth = std::stoi(digits);
    c.max_seq_len = 1024;
    c.num_layers = depth, c.num_heads = depth, c.num_kv_heads = depth % 2 == 0 ? depth / 2 : depth;
    c.channels = 64 * depth;
    c.tied_head = true;
    return c;
  }
  throw std::invalid_argument("unknown model '" + name +
                              "' (expected llama-dN such as llama-d4, llama3-bench, llama3.2-1B or llama3.1-8B)");
}

void validate_config(const LlamaConfig& c) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("bad Llama config: " + what); };
  if (c.max_seq_len <= 0) fail("max_seq_len must be positive");
  if (c.vocab_size <= 0) fail("vocab_size must be positive");
  if (c.num_layers <= 0) fail("num_layers must be positive");
  if (c.num_heads <= 0 || c.num_kv_heads <= 0) fail("num_heads and num_kv_heads must be positive");
  if (c.num_heads % c.num_kv_heads != 0) {
    fail("num_heads (" + std::to_string(c.num_heads) + ") must be a multiple of num_kv_heads (" +
         std::to_string(c.num_kv_heads) + ")");
  }
  if (c.channels <= 0 || c.channels % c.num_heads != 0 || (c.channels / c.num_heads) % 2 != 0) {
    fail("channels (" + std::to_string(c.channels) + ") must be num_heads (" + std::to_string(c.num_heads) +
         ") times an even head size");
  }
  // Bounds far above any published Llama keep every size computation within 64 bits.
  if (c.channels > 65536 || c.num_layers > 4096 || c.vocab_size > (1 << 24) || c.max_seq_len > (1 << 24)) {
    fail("sizes beyond C <= 65536, L <= 4096, V <= 2^24, maxT <= 2^24");
  }
  if (c.multiple_of <= 0 || c.multiple_of > 65536) fail("multiple_of must be in [1, 65536]");
  if (!(c.ffn_dim_multiplier > 0 && c.ffn_dim_multiplier < 64)) fail("ffn_dim_multiplier must be in (0, 64)");
  if (!(c.norm_eps > 0 && c.norm_eps < 1)) fail("norm_eps must be in (0, 1)");
  if (!(c.rope_theta > 1 && std::isfinite(c.rope_theta))) fail("rope_theta must be a finite number above 1");
  if (c.use_scaled_rope && !(c.rope_scale_factor >= 1 && std::isfinite(c.rope_scale_factor) &&
                             c.rope_low_freq_factor > 0 && c.rope_high_freq_factor > c.rope_low_freq_factor &&
                             std::isfinite(c.rope_high_freq_factor) && c.rope_original_context > 0)) {
    fail("RoPE scaling needs factor >= 1, 0 < low_freq_factor < high_freq_factor and a positive original context");
  }
}

std::vector<double> rope_frequencies(const LlamaConfig& c) {
  const int hs = c.channels / c.num_heads;
  std::vector<double> freqs(hs / 2);
  for (int i = 0; i < hs / 2; i++) {
    double freq = 1.0 / std::pow(double(c.rope_theta), 2.0 * i / hs);
    if (c.use_scaled_rope) {
      // Meta's apply_scaling: long wavelengths slowed by the factor, short ones kept, a smooth
      // blend between.
      const double wavelen = 2 * M_PI / freq;
      const double low_wavelen = c.rope_original_context / double(c.rope_low_freq_factor);
      const double high_wavelen = c.rope_original_context / double(c.rope_high_freq_factor);
      if (wavelen > low_wavelen) {
        freq /= c.rope_scale_factor;
      } else if (wavelen >= high_wavelen) {
        const double smooth = (c.rope_original_context / wavelen - c.rope_low_freq_factor) /
                              (c.rope_high_freq_factor - c.rope_low_freq_factor);
        freq = (1 - smooth) * freq / c.rope_scale_factor + smooth * freq;
      }
    }
    freqs[i] = freq;
  }
  return freqs;
}

FloatArena rope_table(const LlamaConfig& config, int positions) {
  const std::vector<double> freqs = rope_frequencies(config);
  const std::size_t half = freqs.size();
  FloatArena table(2 * (std::size_t)positions * half);
  for (int t = 0; t < positions; t++)
    for (std::size_t i = 0; i < half; i++) {
      table.data()[t * half + i] = float(std::cos(t * freqs[i]));
      table.data()[(positions + t) * half + i] = float(std::sin(t * freqs[i]));
    }
  return table;
}

const std::array<const char*, kNumLlamaParameterTensors> kLlamaParameterNames = {
    "wte", "ln1w", "qkvw", "attprojw", "ln2w", "fcw", "fc2w", "fcprojw", "lnfw", "lm_head"};

bool llama_parameter_is_decayed(int i) {
  // Everything but the RMSNorm gains (ln1w, ln2w, lnfw).
  return i != 1 && i != 4 && i != 8;
}

std::array<std::size_t, kNumLlamaParameterTensors> parameter_sizes(const LlamaConfig& c) {
  const std::size_t V = c.vocab_size, C = c.channels, L = c.num_layers, H = llama_hidden_size(c);
  const std::size_t qkv = (std::size_t)(c.num_heads + 2 * c.num_kv_heads) * (c.channels / c.num_heads);
  return {V * C, L * C, L * qkv * C, L * C * C, L * C, L * H * C, L * H * C, L * C * H, C, c.tied_head ? 0 : V * C};
}

LlamaParameters parameter_views(float* memory, const LlamaConfig& config) {
  LlamaParameters t;
  float** slots[kNumLlamaParameterTensors] = {&t.wte, &t.ln1w, &t.qkvw,    &t.attprojw, &t.ln2w,
                                              &t.fcw, &t.fc2w, &t.fcprojw, &t.lnfw,     &t.lm_head};
  const auto sizes = parameter_sizes(config);
  for (int i = 0; i < kNumLlamaParameterTensors; i++) {
    *slots[i] = memory;
    memory += sizes[i];
  }
  if (config.tied_head) t.lm_head = t.wte;
  return t;
}

namespace {

// Checks the config first: the arenas are sized from it.
std::size_t total_parameters(const LlamaConfig& config) {
  validate_config(config);
  std::size_t n = 0;
  for (std::size_t s : parameter_sizes(config)) n += s;
  return n;
}

void take_layer(Layout& m, LlamaLayerActivations& x, const LlamaConfig& c, std::size_t B, std::size_t T) {
  const std::size_t C = c.channels, NH = c.num_heads, BT = B * T;
  const std::size_t QKV = (NH + 2 * c.num_kv_heads) * (C / NH), H = llama_hidden_size(c);
  m.take(x.ln1, BT * C);
  m.take(x.ln1_rstd, BT);
  m.take(x.qkv, BT * QKV);
  m.take(x.qkvr, BT * QKV);
  m.take(x.atty, BT * C);
  m.take(x.att, B * NH * T * T);
  m.take(x.att_sum, B * NH * T);
  m.take(x.residual2, BT * C);
  m.take(x.ln2, BT * C);
  m.take(x.ln2_rstd, BT);
  m.take(x.fc, BT * H);
  m.take(x.fc2, BT * H);
  m.take(x.swiglu, BT * H);
}

// Lays out the activations for (B, T) from memory (or, with null memory, only counts them).
std::size_t activation_views(LlamaActivations& a, std::vector<LlamaLayerActivations>& layers, float* memory,
                             const LlamaConfig& c, int B, int T) {
  const std::size_t L = c.num_layers, C = c.channels, V = c.vocab_size;
  const std::size_t BT = (std::size_t)B * T;
  Layout m(memory);
  m.take(a.residual, (L + 1) * BT * C);
  layers.resize(L);
  for (LlamaLayerActivations& x : layers) take_layer(m, x, c, B, T);
  a.layers = layers.data();
  m.take(a.lnf, BT * C);
  m.take(a.lnf_rstd, BT);
  m.take(a.probs, BT * V);
  m.take(a.losses, BT);
  m.take(a.proj, BT * C);
  return m.used();
}

// Lays out the hand-written backward's scratch, reused by every layer (its own arena: the
// generated backward has none).
std::size_t scratch_views(LlamaActivations& a, float* memory, const LlamaConfig& c, int B, int T) {
  const std::size_t C = c.channels, NH = c.num_heads;
  const std::size_t hs = C / NH, QKV = (NH + 2 * c.num_kv_heads) * hs, H = llama_hidden_size(c);
  const std::size_t BT = (std::size_t)B * T;
  Layout m(memory);
  m.take(a.dresidual, BT * C);
  m.take(a.dln, BT * C);
  m.take(a.datty, BT * C);
  m.take(a.dqkvr, BT * QKV);
  m.take(a.dqkv, BT * QKV);
  m.take(a.dswiglu, BT * H);
  m.take(a.dfc, BT * H);
  m.take(a.dfc2, BT * H);
  m.take(a.datt, B * NH * T);
  m.take(a.dlosses, BT);
  return m.used();
}

std::size_t adjoint_views(LlamaActivations& d, std::vector<LlamaLayerActivations>& layers, float* memory,
                          const LlamaConfig& c, int B, int T) {
  return adjoint_views(d, layers, memory, c.num_layers, c.channels, (std::size_t)B * T, c.vocab_size,
                       [&](Layout& m, LlamaLayerActivations& layer) { take_layer(m, layer, c, B, T); });
}

}  // namespace

std::size_t llama_backward_floats(const LlamaConfig& c, Backward backward, int B, int T) {
  LlamaActivations a{};
  if (backward == Backward::manual) return scratch_views(a, nullptr, c, B, T);
  std::vector<LlamaLayerActivations> layers;
  return adjoint_views(a, layers, nullptr, c, B, T);
}

std::size_t Llama::activation_floats(int B, int T) const {
  LlamaActivations a{};
  std::vector<LlamaLayerActivations> layers;
  return activation_views(a, layers, nullptr, config_, B, T);
}

Llama::Llama(const LlamaConfig& config, bool frozen_bf16)
    : ArenaModel(total_parameters(config), frozen_bf16), config_(config), hidden_(llama_hidden_size(config)) {
  params_ = parameter_views(params_memory_.data(), config);
  if (!frozen_bf16) {
    grads_ = parameter_views(grads_memory_.data(), config);
    return;
  }
  // The embedding and the RMSNorm gains stay fp32; the other matrices are the bf16 stand-ins' to
  // provide (the embedding is read by row lookups, not GEMMs).
  const auto sizes = parameter_sizes(config);
  params_memory_.make_usable(params_.wte, sizes[kLlamaWte]);
  params_memory_.make_usable(params_.ln1w, sizes[kLlamaLn1w]);
  params_memory_.make_usable(params_.ln2w, sizes[kLlamaLn2w]);
  params_memory_.make_usable(params_.lnfw, sizes[kLlamaLnfw]);
}

void Llama::init_random(std::uint64_t seed) {
  Rng rng(seed);
  const auto sizes = parameter_sizes(config_);
  const LlamaParameters& p = params_;
  float* tensors[kNumLlamaParameterTensors] = {p.wte, p.ln1w, p.qkvw,    p.attprojw, p.ln2w,
                                               p.fcw, p.fc2w, p.fcprojw, p.lnfw,     p.lm_head};
  const double residual_scale = 1.0 / std::sqrt(2.0 * config_.num_layers);
  for (int i = 0; i < kNumLlamaParameterTensors; i++) {
    const std::string name = kLlamaParameterNames[i];
    if (!llama_parameter_is_decayed(i)) {
      for (std::size_t j = 0; j < sizes[i]; j++) tensors[i][j] = 1.0f;
      continue;
    }
    const double std = (name == "attprojw" || name == "fcprojw") ? 0.02 * residual_scale : 0.02;
    for (std::size_t j = 0; j < sizes[i]; j++) tensors[i][j] = float(std * rng.normal());
  }
}

std::size_t Llama::lay_out_activations(float* memory, int B, int T) {
  return activation_views(acts_, layer_acts_, memory, config_, B, T);
}

std::size_t Llama::lay_out_adjoints(float* memory, int B, int T) {
  return adjoint_views(dacts_, layer_dacts_, memory, config_, B, T);
}

std::size_t Llama::lay_out_scratch(float* memory, int B, int T) { return scratch_views(acts_, memory, config_, B, T); }

// RoPE's table for the reserved T serves every shorter T.
void Llama::activations_reserved(int, int T) { rope_table_ = rope_table(config_, T); }

float Llama::run_forward(const int* inputs, const int* targets, int B, int T) {
  const LlamaConfig& c = config_;
  if (!targets) {
    llama_logits(params_, acts_, inputs, rope_cos(), rope_sin(), adapters(), B, T, c.channels, c.num_heads,
                 c.num_kv_heads, hidden_, c.num_layers, c.vocab_size, c.norm_eps);
    return 0.0f;
  }
  return llama_loss(params_, acts_, inputs, targets, rope_cos(), rope_sin(), adapters(), B, T, c.channels, c.num_heads,
                    c.num_kv_heads, hidden_, c.num_layers, c.vocab_size, c.norm_eps);
}

float Llama::run_generated(const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) {
#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
  const LlamaConfig& c = config_;
  if (adapters()) {
    return llama_lora_generated_forward_backward(params_, acts_, inputs, targets, rope_cos(), rope_sin(), *adapters(),
                                                 B, T, c.channels, c.num_heads, c.num_kv_heads, hidden_, c.num_layers,
                                                 c.vocab_size, c.norm_eps, dacts_, tape_bytes);
  }
  return llama_generated_forward_backward(params_, acts_, inputs, targets, rope_cos(), rope_sin(), B, T, c.channels,
                                          c.num_heads, c.num_kv_heads, hidden_, c.num_layers, c.vocab_size, c.norm_eps,
                                          grads_, dacts_, tape_bytes);
#else
  (void)inputs, (void)targets, (void)B, (void)T, (void)tape_bytes;
  throw std::invalid_argument("this build has no generated backward");
#endif
}

#ifndef ADJOINT_HAVE_GENERATED_BACKWARD
const char* llama_generated_backward_source() { return ""; }
const char* llama_lora_generated_backward_source() { return ""; }
#endif

void Llama::run_backward(const int* inputs, const int* targets, int B, int T) {
  const int C = config_.channels, NH = config_.num_heads, NKV = config_.num_kv_heads, L = config_.num_layers;
  const int V = config_.vocab_size, H = hidden_, hs = C / NH, QKV = (NH + 2 * NKV) * hs;
  const int N = B * T;
  const std::size_t NC = (std::size_t)N * C, HC = (std::size_t)H * C, QKVC = (std::size_t)QKV * C;
  const LlamaParameters& p = params_;
  LlamaActivations& a = acts_;
  const std::size_t layer_scratch = static_cast<std::size_t>(a.datt - a.dln);
  // A frozen base (LoRA) has no gradients: every dweight below is then null.
  const bool frozen = adapters() != nullptr;
  auto grad = [&](float* LlamaParameters::*tensor, std::size_t offset) {
    return frozen ? nullptr : grads_.*tensor + offset;
  };

  const int counted = counted_targets(targets, N);
  for (int i = 0; i < N; i++) a.dlosses[i] = counted > 0 ? 1.0f / counted : 0.0f;
  softmax_crossentropy_backward(a.probs, a.probs, targets, a.dlosses, N, V, V);
  std::memset(a.dln, 0, NC * sizeof(float));
  projection_backward(kLlamaLmHead, 0, a.dln, grad(&LlamaParameters::lm_head, 0), nullptr, a.probs, a.lnf, p.lm_head, N,
                      C, V);
  std::memset(a.dresidual, 0, NC * sizeof(float));
  rmsnorm_backward(a.dresidual, grad(&LlamaParameters::lnfw, 0), a.dln, a.residual + L * NC, p.lnfw, a.lnf_rstd, N, C);

  // dresidual carries the residual stream's gradient through the blocks, as in GPT2::backward.
  for (int l = L - 1; l >= 0; l--) {
    const float* residual = a.residual + l * NC;
    const LlamaLayerActivations& x = a.layers[l];
    std::memset(a.dln, 0, layer_scratch * sizeof(float));

    projection_backward(kLlamaFcprojw, l, a.dswiglu, grad(&LlamaParameters::fcprojw, l * HC), nullptr, a.dresidual,
                        x.swiglu, p.fcprojw + l * HC, N, H, C);
    swiglu_backward(a.dfc2, a.dfc, a.dswiglu, x.fc2, x.fc, (std::size_t)N * H);
    projection_backward(kLlamaFcw, l, a.dln, grad(&LlamaParameters::fcw, l * HC), nullptr, a.dfc, x.ln2, p.fcw + l * HC,
                        N, C, H);
    projection_backward(kLlamaFc2w, l, a.dln, grad(&LlamaParameters::fc2w, l * HC), nullptr, a.dfc2, x.ln2,
                        p.fc2w + l * HC, N, C, H);
    rmsnorm_backward(a.dresidual, grad(&LlamaParameters::ln2w, l * C), a.dln, x.residual2, p.ln2w + l * C, x.ln2_rstd,
                     N, C);

    projection_backward(kLlamaAttprojw, l, a.datty, grad(&LlamaParameters::attprojw, (std::size_t)l * C * C), nullptr,
                        a.dresidual, x.atty, p.attprojw + (std::size_t)l * C * C, N, C, C);
    grouped_attention_backward(a.dqkvr, a.datt, a.datty, x.qkvr, x.att, B, T, NH, NKV, hs);
    rope_backward(a.dqkv, a.dqkvr, rope_cos(), rope_sin(), B, T, NH + NKV, NH + 2 * NKV, hs);
    std::memset(a.dln, 0, NC * sizeof(float));
    projection_backward(kLlamaQkvw, l, a.dln, grad(&LlamaParameters::qkvw, l * QKVC), nullptr, a.dqkv, x.ln1,
                        p.qkvw + l * QKVC, N, C, QKV);
    rmsnorm_backward(a.dresidual, grad(&LlamaParameters::ln1w, l * C), a.dln, residual, p.ln1w + l * C, x.ln1_rstd, N,
                     C);
    layer_backward_done(l);
  }
  if (!frozen) encoder_backward(grads_.wte, static_cast<float*>(nullptr), a.dresidual, inputs, B, T, C);
}

// ---- The Model interface

std::vector<ParameterTensor> Llama::parameter_tensors() const {
  const auto sizes = parameter_sizes(config_);
  std::vector<ParameterTensor> tensors;
  for (int i = 0; i < kNumLlamaParameterTensors; i++) {
    // wte, then the layers' tensors (their slices one after another), then lnfw and lm_head.
    const bool per_layer = i >= 1 && i < kNumLlamaParameterTensors - 2;
    tensors.push_back(
        {kLlamaParameterNames[i], sizes[i], llama_parameter_is_decayed(i), per_layer ? config_.num_layers : 0});
  }
  return tensors;
}

// <|begin_of_text|> in Llama 3's vocabulary.
int Llama::start_token() const { return config_.vocab_size > 128000 ? 128000 : 0; }

std::string describe(const LlamaConfig& c) {
  return fmt::format("Llama L={} NH={} NKV={} C={} hidden={} V={} maxT={}{}", c.num_layers, c.num_heads, c.num_kv_heads,
                     c.channels, llama_hidden_size(c), c.vocab_size, c.max_seq_len, c.tied_head ? " tied head" : "");
}

std::string Llama::describe() const { return adjoint::describe(config_); }

double Llama::step_flops(int B, int T) const {
  const LlamaConfig& c = config_;
  const double N = double(B) * T, C = c.channels, L = c.num_layers, H = hidden_;
  const double QKV = double(c.num_heads + 2 * c.num_kv_heads) * (c.channels / c.num_heads);
  const double matmul = 2.0 * N * (L * (QKV * C + C * C + 3 * H * C) + C * c.vocab_size);
  const double attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
  return 3.0 * (matmul + attention);
}

void Llama::save_file(const std::string& path, const float* values) const { save_llama_file(path, config_, values); }

void Llama::save_training_state(const std::string& path, const AdamW& optimizer,
                                const TrainingProgress& progress) const {
  save_llama_state(path, *this, optimizer.m(), optimizer.v(), progress);
}

TrainingProgress Llama::load_training_state(const std::string& path, AdamW& optimizer) {
  return load_llama_state(path, *this, optimizer.m(), optimizer.v());
}

std::unique_ptr<TokenGenerator> Llama::generator(int positions) const {
  return std::make_unique<LlamaGenerator>(*this, positions);
}

}  // namespace adjoint
