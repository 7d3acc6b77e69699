// The GPT-2 model over the kernels, with the hand-written backward pass (the baseline), and its
// side of the Model interface (tensor table, files, training state, generator).
#include "adjoint/gpt2.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <new>
#include <stdexcept>
#include <string>

#include "adjoint/checkpoint.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/optimizer.hpp"
#include "adjoint/random.hpp"
#include "adjoint/sampler.hpp"
#include "adjoint/tokenizer.hpp"
#include "../layout.hpp"

namespace adjoint {

using namespace kernels;

int padded_vocab(int vocab_size) { return (vocab_size + 127) / 128 * 128; }

GPT2Config gpt2_config(int max_seq_len, int vocab_size, int num_layers, int num_heads, int channels) {
  GPT2Config c;
  c.max_seq_len = max_seq_len;
  c.vocab_size = vocab_size;
  c.padded_vocab_size = padded_vocab(vocab_size);
  c.num_layers = num_layers;
  c.num_heads = num_heads;
  c.channels = channels;
  return c;
}

GPT2Config gpt2_config_from_name(const std::string& name) {
  int depth = 0;
  if (name == "gpt2-124M") {
    depth = 12;
  } else if (name.size() > 1 && name[0] == 'd' && name.find_first_not_of("0123456789", 1) == std::string::npos &&
             name.size() < 5) {
    depth = std::stoi(name.substr(1));
  }
  if (depth <= 0) {
    throw std::invalid_argument("unknown model '" + name +
                                "' (expected gpt2-124M, dN such as d4/d6/d12, or a model file)");
  }
  return gpt2_config(1024, 50257, depth, depth, 64 * depth);
}

void validate_config(const GPT2Config& c) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("bad model config: " + what); };
  if (c.max_seq_len <= 0) fail("max_seq_len must be positive");
  if (c.vocab_size <= 0) fail("vocab_size must be positive");
  if (c.padded_vocab_size < c.vocab_size) fail("padded_vocab_size is smaller than vocab_size");
  if (c.num_layers <= 0) fail("num_layers must be positive");
  if (c.num_heads <= 0) fail("num_heads must be positive");
  if (c.channels <= 0 || c.channels % c.num_heads != 0) {
    fail("channels (" + std::to_string(c.channels) + ") must be a positive multiple of num_heads (" +
         std::to_string(c.num_heads) + ")");
  }
  // Bounds far above any real model that keep every size computed from the config exact: the
  // parameter count in 64 bits, and the kernels' int offsets such as l * 4 * C.
  if (c.channels > (1 << 16)) fail("channels (" + std::to_string(c.channels) + ") is above 65536");
  if (c.max_seq_len > (1 << 24)) fail("max_seq_len (" + std::to_string(c.max_seq_len) + ") is above 16777216");
  if (c.padded_vocab_size > (1 << 24)) {
    fail("padded_vocab_size (" + std::to_string(c.padded_vocab_size) + ") is above 16777216");
  }
  if (std::int64_t(c.num_layers) * 4 * c.channels > INT32_MAX) fail("num_layers * 4 * channels is above 2^31");
}

const std::array<const char*, kNumParameterTensors> kParameterNames = {
    "wte",  "wpe",  "ln1w", "ln1b", "qkvw",    "qkvb",    "attprojw", "attprojb",
    "ln2w", "ln2b", "fcw",  "fcb",  "fcprojw", "fcprojb", "lnfw",     "lnfb"};

bool parameter_is_decayed(int i) {
  // wte, wpe, qkvw, attprojw, fcw, fcprojw
  return i == 0 || i == 1 || i == 4 || i == 6 || i == 10 || i == 12;
}

std::array<std::size_t, kNumParameterTensors> parameter_sizes(const GPT2Config& c) {
  const std::size_t Vp = c.padded_vocab_size, C = c.channels, L = c.num_layers, maxT = c.max_seq_len;
  return {Vp * C, maxT * C, L * C,         L * C,     L * 3 * C * C, L * 3 * C, L * C * C, L * C,
          L * C,  L * C,    L * 4 * C * C, L * 4 * C, L * C * 4 * C, L * C,     C,         C};
}

ParameterTensors parameter_views(float* memory, const GPT2Config& config) {
  ParameterTensors t;
  float** slots[kNumParameterTensors] = {&t.wte,      &t.wpe,      &t.ln1w, &t.ln1b, &t.qkvw, &t.qkvb,
                                         &t.attprojw, &t.attprojb, &t.ln2w, &t.ln2b, &t.fcw,  &t.fcb,
                                         &t.fcprojw,  &t.fcprojb,  &t.lnfw, &t.lnfb};
  const auto sizes = parameter_sizes(config);
  for (int i = 0; i < kNumParameterTensors; i++) {
    *slots[i] = memory;
    memory += sizes[i];
  }
  return t;
}

namespace {

// Checks the config first: the arenas are sized from it.
std::size_t total_parameters(const GPT2Config& config) {
  validate_config(config);
  std::size_t n = 0;
  for (std::size_t s : parameter_sizes(config)) n += s;
  return n;
}

void take_layer(Layout& m, LayerActivations& x, const GPT2Config& c, std::size_t B, std::size_t T) {
  const std::size_t C = c.channels, NH = c.num_heads, BT = B * T;
  m.take(x.ln1, BT * C);
  m.take(x.ln1_mean, BT);
  m.take(x.ln1_rstd, BT);
  m.take(x.qkv, BT * 3 * C);
  m.take(x.atty, BT * C);
  m.take(x.att, B * NH * T * T);
  m.take(x.att_sum, B * NH * T);
  m.take(x.residual2, BT * C);
  m.take(x.ln2, BT * C);
  m.take(x.ln2_mean, BT);
  m.take(x.ln2_rstd, BT);
  m.take(x.fch, BT * 4 * C);
  m.take(x.fch_gelu, BT * 4 * C);
}

// Lays out the activations for (B, T) from memory (or, with null memory, only counts them).
std::size_t activation_views(ActivationTensors& a, std::vector<LayerActivations>& layers, float* memory,
                             const GPT2Config& c, int B, int T) {
  const std::size_t L = c.num_layers, C = c.channels, Vp = c.padded_vocab_size;
  const std::size_t BT = (std::size_t)B * T;
  Layout m(memory);
  m.take(a.residual, (L + 1) * BT * C);
  layers.resize(L);
  for (LayerActivations& layer : layers) take_layer(m, layer, c, B, T);
  a.layers = layers.data();
  m.take(a.lnf, BT * C);
  m.take(a.lnf_mean, BT);
  m.take(a.lnf_rstd, BT);
  m.take(a.probs, BT * Vp);
  m.take(a.losses, BT);
  m.take(a.proj, BT * C);
  return m.used();
}

// Lays out the hand-written backward's scratch, reused by every layer (its own arena: the
// generated backward has none).
std::size_t scratch_views(ActivationTensors& a, float* memory, const GPT2Config& c, int B, int T) {
  const std::size_t C = c.channels, NH = c.num_heads, BT = (std::size_t)B * T;
  Layout m(memory);
  m.take(a.dresidual, BT * C);
  m.take(a.dln, BT * C);
  m.take(a.datty, BT * C);
  m.take(a.dqkv, BT * 3 * C);
  m.take(a.dfch_gelu, BT * 4 * C);
  m.take(a.dfch, BT * 4 * C);
  m.take(a.datt, B * NH * T);
  m.take(a.dlosses, BT);
  return m.used();
}

std::size_t adjoint_views(ActivationTensors& d, std::vector<LayerActivations>& layers, float* memory,
                          const GPT2Config& c, int B, int T) {
  return adjoint_views(d, layers, memory, c.num_layers, c.channels, (std::size_t)B * T, c.padded_vocab_size,
                       [&](Layout& m, LayerActivations& layer) { take_layer(m, layer, c, B, T); });
}

}  // namespace

std::size_t gpt2_backward_floats(const GPT2Config& c, Backward backward, int B, int T) {
  ActivationTensors a{};
  if (backward == Backward::manual) return scratch_views(a, nullptr, c, B, T);
  std::vector<LayerActivations> layers;
  return adjoint_views(a, layers, nullptr, c, B, T);
}

std::size_t GPT2::activation_floats(int B, int T) const {
  ActivationTensors a{};
  std::vector<LayerActivations> layers;
  return activation_views(a, layers, nullptr, config_, B, T);
}

GPT2::GPT2(const GPT2Config& config, bool frozen_bf16)
    : ArenaModel(total_parameters(config), frozen_bf16), config_(config) {
  params_ = parameter_views(params_memory_.data(), config);
  if (!frozen_bf16) {
    grads_ = parameter_views(grads_memory_.data(), config);
    return;
  }
  // The four projection weights are the stand-ins'; everything else stays fp32 (the embeddings are
  // read by row lookups, not GEMMs).
  const auto sizes = parameter_sizes(config);
  float* tensor = params_memory_.data();
  for (int i = 0; i < kNumParameterTensors; i++) {
    const bool bf16 = i == kGpt2Qkvw || i == kGpt2Attprojw || i == kGpt2Fcw || i == kGpt2Fcprojw;
    if (!bf16) params_memory_.make_usable(tensor, sizes[i]);
    tensor += sizes[i];
  }
}

void GPT2::init_random(std::uint64_t seed) {
  Rng rng(seed);
  const auto sizes = parameter_sizes(config_);
  const ParameterTensors& p = params_;
  float* tensors[kNumParameterTensors] = {p.wte,  p.wpe,  p.ln1w, p.ln1b, p.qkvw,    p.qkvb,    p.attprojw, p.attprojb,
                                          p.ln2w, p.ln2b, p.fcw,  p.fcb,  p.fcprojw, p.fcprojb, p.lnfw,     p.lnfb};
  const double residual_scale = 1.0 / std::sqrt(2.0 * config_.num_layers);
  for (int i = 0; i < kNumParameterTensors; i++) {
    float* t = tensors[i];
    const std::string name = kParameterNames[i];
    if (name == "ln1w" || name == "ln2w" || name == "lnfw") {
      for (std::size_t j = 0; j < sizes[i]; j++) t[j] = 1.0f;
    } else if (parameter_is_decayed(i)) {
      const double std = (name == "attprojw" || name == "fcprojw") ? 0.02 * residual_scale : 0.02;
      for (std::size_t j = 0; j < sizes[i]; j++) t[j] = float(std * rng.normal());
    } else {
      std::memset(t, 0, sizes[i] * sizeof(float));
    }
  }
  // Padded vocabulary rows never take part: keep them zero.
  const std::size_t C = config_.channels;
  std::memset(p.wte + (std::size_t)config_.vocab_size * C, 0,
              (std::size_t)(config_.padded_vocab_size - config_.vocab_size) * C * sizeof(float));
}

std::size_t GPT2::lay_out_activations(float* memory, int B, int T) {
  return activation_views(acts_, layer_acts_, memory, config_, B, T);
}

std::size_t GPT2::lay_out_adjoints(float* memory, int B, int T) {
  return adjoint_views(dacts_, layer_dacts_, memory, config_, B, T);
}

std::size_t GPT2::lay_out_scratch(float* memory, int B, int T) { return scratch_views(acts_, memory, config_, B, T); }

float GPT2::run_forward(const int* inputs, const int* targets, int B, int T) {
  const GPT2Config& c = config_;
  if (!targets) {
    gpt2_logits(params_, acts_, inputs, adapters(), B, T, c.channels, c.num_heads, c.num_layers, c.padded_vocab_size);
    return 0.0f;
  }
  return gpt2_loss(params_, acts_, inputs, targets, adapters(), B, T, c.channels, c.num_heads, c.num_layers,
                   c.vocab_size, c.padded_vocab_size);
}

float GPT2::run_generated(const int* inputs, const int* targets, int B, int T, std::size_t* tape_bytes) {
#ifdef ADJOINT_HAVE_GENERATED_BACKWARD
  if (adapters()) {
    return gpt2_lora_generated_forward_backward(config_, params_, acts_, inputs, targets, *adapters(), B, T, dacts_,
                                                tape_bytes);
  }
  const float loss = gpt2_generated_forward(config_, params_, acts_, inputs, targets, B, T, tape_bytes);
  gpt2_generated_backward(config_, params_, acts_, inputs, targets, B, T, grads_, dacts_);
  return loss;
#else
  (void)inputs, (void)targets, (void)B, (void)T, (void)tape_bytes;
  throw std::invalid_argument("this build has no generated backward");
#endif
}

#ifndef ADJOINT_HAVE_GENERATED_BACKWARD
const char* generated_backward_source() { return ""; }
const char* gpt2_lora_generated_backward_source() { return ""; }
#endif

void GPT2::run_backward(const int* inputs, const int* targets, int B, int T) {
  const int C = config_.channels, NH = config_.num_heads, L = config_.num_layers;
  const int V = config_.vocab_size, Vp = config_.padded_vocab_size;
  const int N = B * T;
  const std::size_t NC = (std::size_t)N * C;
  const std::size_t CC = (std::size_t)C * C;
  const ParameterTensors& p = params_;
  ActivationTensors& a = acts_;
  // dln … dfch are contiguous (see scratch_views): one clear per layer.
  const std::size_t layer_scratch = static_cast<std::size_t>(a.datt - a.dln);
  // A frozen base (LoRA) has no gradients: every parameter gradient below is then null.
  const bool frozen = adapters() != nullptr;
  auto grad = [&](float* ParameterTensors::*tensor, std::size_t offset) {
    return frozen ? nullptr : grads_.*tensor + offset;
  };

  // The loss is the mean over the positions with a target.
  const int counted = counted_targets(targets, N);
  for (int i = 0; i < N; i++) a.dlosses[i] = counted > 0 ? 1.0f / counted : 0.0f;
  softmax_crossentropy_backward(a.probs, a.probs, targets, a.dlosses, N, V, Vp);
  std::memset(a.dln, 0, NC * sizeof(float));
  projection_backward(kGpt2Wte, 0, a.dln, grad(&ParameterTensors::wte, 0), nullptr, a.probs, a.lnf, p.wte, N, C, Vp);
  std::memset(a.dresidual, 0, NC * sizeof(float));
  layernorm_backward(a.dresidual, grad(&ParameterTensors::lnfw, 0), grad(&ParameterTensors::lnfb, 0), a.dln,
                     a.residual + L * NC, p.lnfw, a.lnf_mean, a.lnf_rstd, N, C);

  // dresidual carries the gradient of the residual stream: each residual add passes it
  // through unchanged, so the blocks only add their branches' contributions to it.
  for (int l = L - 1; l >= 0; l--) {
    const float* residual = a.residual + l * NC;
    const LayerActivations& x = a.layers[l];
    std::memset(a.dln, 0, layer_scratch * sizeof(float));

    projection_backward(kGpt2Fcprojw, l, a.dfch_gelu, grad(&ParameterTensors::fcprojw, l * 4 * CC),
                        grad(&ParameterTensors::fcprojb, l * C), a.dresidual, x.fch_gelu, p.fcprojw + l * 4 * CC, N,
                        4 * C, C);
    gelu_backward(a.dfch, x.fch, a.dfch_gelu, NC * 4);
    projection_backward(kGpt2Fcw, l, a.dln, grad(&ParameterTensors::fcw, l * 4 * CC),
                        grad(&ParameterTensors::fcb, l * 4 * C), a.dfch, x.ln2, p.fcw + l * 4 * CC, N, C, 4 * C);
    layernorm_backward(a.dresidual, grad(&ParameterTensors::ln2w, l * C), grad(&ParameterTensors::ln2b, l * C), a.dln,
                       x.residual2, p.ln2w + l * C, x.ln2_mean, x.ln2_rstd, N, C);

    projection_backward(kGpt2Attprojw, l, a.datty, grad(&ParameterTensors::attprojw, l * CC),
                        grad(&ParameterTensors::attprojb, l * C), a.dresidual, x.atty, p.attprojw + l * CC, N, C, C);
    attention_backward(a.dqkv, a.datt, a.datty, x.qkv, x.att, B, T, C, NH);
    std::memset(a.dln, 0, NC * sizeof(float));
    projection_backward(kGpt2Qkvw, l, a.dln, grad(&ParameterTensors::qkvw, l * 3 * CC),
                        grad(&ParameterTensors::qkvb, l * 3 * C), a.dqkv, x.ln1, p.qkvw + l * 3 * CC, N, C, 3 * C);
    layernorm_backward(a.dresidual, grad(&ParameterTensors::ln1w, l * C), grad(&ParameterTensors::ln1b, l * C), a.dln,
                       residual, p.ln1w + l * C, x.ln1_mean, x.ln1_rstd, N, C);
    layer_backward_done(l);
  }
  if (!frozen) encoder_backward(grads_.wte, grads_.wpe, a.dresidual, inputs, B, T, C);
}

// ---- The Model interface

std::vector<ParameterTensor> GPT2::parameter_tensors() const {
  const auto sizes = parameter_sizes(config_);
  std::vector<ParameterTensor> tensors;
  // wte, wpe, then ln1w … fcprojb with the layers' slices one after another, then lnfw, lnfb.
  for (int i = 0; i < kNumParameterTensors; i++) {
    const bool per_layer = i >= 2 && i < kNumParameterTensors - 2;
    tensors.push_back({kParameterNames[i], sizes[i], parameter_is_decayed(i), per_layer ? config_.num_layers : 0});
  }
  return tensors;
}

int GPT2::start_token() const { return GPT2Tokenizer::eot_token < config_.vocab_size ? GPT2Tokenizer::eot_token : 0; }

std::string describe(const GPT2Config& c) {
  return fmt::format("L={} NH={} C={} V={} maxT={}", c.num_layers, c.num_heads, c.channels, c.vocab_size,
                     c.max_seq_len);
}

std::string GPT2::describe() const { return adjoint::describe(config_); }

// Matmuls (backward is twice forward) and the causal attention's two batched products.
double GPT2::step_flops(int B, int T) const {
  const GPT2Config& c = config_;
  const double N = double(B) * T, C = c.channels, L = c.num_layers;
  const double matmul = 2.0 * N * (L * (3 * C * C + C * C + 4 * C * C + 4 * C * C) + C * c.padded_vocab_size);
  const double attention = L * 2.0 * 2.0 * B * (T * (T + 1) / 2.0) * C;
  return 3.0 * (matmul + attention);
}

void GPT2::save_file(const std::string& path, const float* values) const { save_model_file(path, config_, values); }

void GPT2::save_training_state(const std::string& path, const AdamW& optimizer,
                               const TrainingProgress& progress) const {
  adjoint::save_training_state(path, *this, optimizer, progress);
}

TrainingProgress GPT2::load_training_state(const std::string& path, AdamW& optimizer) {
  return adjoint::load_training_state(path, *this, optimizer);
}

std::unique_ptr<TokenGenerator> GPT2::generator(int) const { return std::make_unique<Generator>(*this); }

}  // namespace adjoint
