// LoRA adapters: the arithmetic of one adapted projection, the settings' checks, Llama's sites and
// the adapters' arena (adjoint/lora.hpp).
#include "adjoint/lora.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adjoint/gemm.hpp"
#include "adjoint/kernels.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/random.hpp"

namespace adjoint {

namespace {

// The target's index in kLoraTargets (its size when it is none of them).
int target_index(const std::string& target) {
  return int(std::find(kLoraTargets.begin(), kLoraTargets.end(), target) - kLoraTargets.begin());
}

// site(target) for each of the config's targets, checking the rank against each.
template <class SiteOf>
std::vector<LoraSite> sites_within_rank(const LoraConfig& lora, SiteOf site) {
  std::vector<LoraSite> sites;
  for (const std::string& target : lora.targets) {
    sites.push_back(site(target));
    const LoraSite& s = sites.back();
    if (lora.rank > std::min(s.in, s.out)) {
      throw std::invalid_argument("--lora-rank " + std::to_string(lora.rank) + " exceeds target " + target +
                                  "'s smaller side min(" + std::to_string(s.in) + ", " + std::to_string(s.out) + ")");
    }
  }
  return sites;
}

}  // namespace

void adapted_projection_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                 const float* weight, const LoraAdapters* adapters, int tensor, int layer, int N, int C,
                                 int OC) {
  if (dweight) {
    kernels::matmul_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC);
  } else {
    gemm(false, false, N, C, OC, 1.0f, dout, OC, weight, C, 1.0f, dinp, C);
  }
  if (adapters) adapters->backward(tensor, layer, dinp, dout, inp, N);
}

std::vector<std::string> parse_lora_targets(const std::string& list) {
  if (list.empty()) throw std::invalid_argument("--lora-targets: the list is empty (expected names like q,k,v,o)");
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string name = list.substr(begin, comma - begin);
    if (std::find(kLoraTargets.begin(), kLoraTargets.end(), name) == kLoraTargets.end()) {
      throw std::invalid_argument("--lora-targets: unknown target '" + name +
                                  "' (Llama's: q, k, v, o, gate, up, down; GPT-2's: qkv, attproj, fc, fcproj)");
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      throw std::invalid_argument("--lora-targets: '" + name + "' is given twice");
    }
    names.push_back(name);
    begin = comma + 1;
  }
  return names;
}

void validate_lora_config(const LoraConfig& config) {
  if (config.rank < 1 || config.rank > 65536) {
    throw std::invalid_argument("--lora-rank " + std::to_string(config.rank) + " is outside [1, 65536]");
  }
  if (!(config.alpha > 0 && std::isfinite(config.alpha))) {
    throw std::invalid_argument("--lora-alpha " + std::to_string(config.alpha) + " is not a finite number above 0");
  }
  std::string list;
  for (const std::string& name : config.targets) list += (list.empty() ? "" : ",") + name;
  parse_lora_targets(list);
}

template <typename F>
void lora_forward(F* out, int ld_out, F* xa, const F* x, const F* A, const F* B, F scale, int N, int in,
                  int out_features, int r) {
  // xa (N,r) = scale · x (N,in) · Aᵀ; out (N,out) += xa · Bᵀ.
  gemm(false, true, N, r, in, scale, x, in, A, in, F(0), xa, r);
  gemm(false, true, N, out_features, r, F(1), xa, r, B, r, F(1), out, ld_out);
}

template <typename F>
void lora_backward(F* dx, F* dA, F* dB, F* dxa, const F* dout, int ld_out, const F* x, const F* xa, const F* A,
                   const F* B, F scale, int N, int in, int out_features, int r) {
  // dB (out,r) += doutᵀ · xa; dxa (N,r) = dout · B, the gradient of xa / scale.
  gemm(true, false, out_features, r, N, F(1), dout, ld_out, xa, r, F(1), dB, r);
  gemm(false, false, N, r, out_features, F(1), dout, ld_out, B, r, F(0), dxa, r);
  // dA (r,in) += scale · dxaᵀ · x; dx (N,in) += scale · dxa · A.
  gemm(true, false, r, in, N, scale, dxa, r, x, in, F(1), dA, in);
  gemm(false, false, N, in, r, scale, dxa, r, A, in, F(1), dx, in);
}

template <typename F>
void lora_merge(F* W, const F* A, const F* B, F scale, int in, int out_features, int r) {
  gemm(false, false, out_features, in, r, scale, B, r, A, in, F(1), W, in);
}

template void lora_forward<float>(float*, int, float*, const float*, const float*, const float*, float, int, int, int,
                                  int);
template void lora_forward<double>(double*, int, double*, const double*, const double*, const double*, double, int, int,
                                   int, int);
template void lora_backward<float>(float*, float*, float*, float*, const float*, int, const float*, const float*,
                                   const float*, const float*, float, int, int, int, int);
template void lora_backward<double>(double*, double*, double*, double*, const double*, int, const double*,
                                    const double*, const double*, const double*, double, int, int, int, int);
template void lora_merge<float>(float*, const float*, const float*, float, int, int, int);
template void lora_merge<double>(double*, const double*, const double*, double, int, int, int);

std::vector<LoraSite> llama_lora_sites(const LlamaConfig& c, const LoraConfig& lora) {
  validate_config(c);
  validate_lora_config(lora);
  const auto sizes = parameter_sizes(c);
  // Each tensor's offset in the arena (kLlamaParameterNames order).
  std::array<std::size_t, kNumLlamaParameterTensors> offsets{};
  for (int i = 1; i < kNumLlamaParameterTensors; i++) offsets[i] = offsets[i - 1] + sizes[i - 1];
  const int C = c.channels, H = llama_hidden_size(c), kv = c.num_kv_heads * (C / c.num_heads), QKV = C + 2 * kv;
  const std::size_t L = c.num_layers;
  auto in_tensor = [&](const char* target, int tensor, int rows, int first_row, int in, int out) {
    return LoraSite{target, tensor, offsets[tensor], sizes[tensor] / L, rows, first_row, in, out};
  };
  auto site = [&](const std::string& t) {
    if (target_index(t) >= kFirstGpt2LoraTarget) {
      throw std::invalid_argument("--lora-targets: '" + t + "' is GPT-2's; Llama's are q, k, v, o, gate, up, down");
    }
    if (t == "q") return in_tensor("q", kLlamaQkvw, QKV, 0, C, C);
    if (t == "k") return in_tensor("k", kLlamaQkvw, QKV, C, C, kv);
    if (t == "v") return in_tensor("v", kLlamaQkvw, QKV, C + kv, C, kv);
    if (t == "o") return in_tensor("o", kLlamaAttprojw, C, 0, C, C);
    if (t == "up") return in_tensor("up", kLlamaFcw, H, 0, C, H);
    if (t == "gate") return in_tensor("gate", kLlamaFc2w, H, 0, C, H);
    return in_tensor("down", kLlamaFcprojw, C, 0, H, C);  // parse_lora_targets knew the name
  };
  return sites_within_rank(lora, site);
}

std::vector<LoraSite> gpt2_lora_sites(const GPT2Config& c, const LoraConfig& lora) {
  validate_lora_config(lora);
  const auto sizes = parameter_sizes(c);
  std::array<std::size_t, kNumParameterTensors> offsets{};
  for (int i = 1; i < kNumParameterTensors; i++) offsets[i] = offsets[i - 1] + sizes[i - 1];
  const int C = c.channels;
  const std::size_t L = c.num_layers;
  auto in_tensor = [&](const char* target, int tensor, int rows, int in) {
    return LoraSite{target, tensor, offsets[tensor], sizes[tensor] / L, rows, 0, in, rows};
  };
  auto site = [&](const std::string& t) {
    if (target_index(t) < kFirstGpt2LoraTarget) {
      throw std::invalid_argument("--lora-targets: '" + t + "' is Llama's; GPT-2's are qkv, attproj, fc, fcproj");
    }
    if (t == "qkv") return in_tensor("qkv", kGpt2Qkvw, 3 * C, C);
    if (t == "attproj") return in_tensor("attproj", kGpt2Attprojw, C, C);
    if (t == "fc") return in_tensor("fc", kGpt2Fcw, 4 * C, C);
    return in_tensor("fcproj", kGpt2Fcprojw, C, 4 * C);
  };
  return sites_within_rank(lora, site);
}

namespace {

// Per site, the float offset of its A block (L·r·in floats, then L·out·r of B); the total last.
// Checks the config first: the arenas are sized from it.
std::vector<std::size_t> block_offsets(const std::vector<LoraSite>& sites, int L, const LoraConfig& config) {
  validate_lora_config(config);
  const int r = config.rank;
  std::vector<std::size_t> offsets{0};
  for (const LoraSite& s : sites) offsets.push_back(offsets.back() + (std::size_t)L * r * (s.in + s.out));
  return offsets;
}

}  // namespace

LoraAdapters::LoraAdapters(std::vector<LoraSite> sites, int layers, const LoraConfig& config, std::uint64_t seed)
    : config_(config),
      sites_(std::move(sites)),
      layers_(layers),
      offsets_(block_offsets(sites_, layers, config)),
      params_(offsets_.back()),
      grads_(offsets_.back()) {
  Rng rng(seed);
  for (std::size_t s = 0; s < sites_.size(); s++) {
    // kaiming_uniform_(a=sqrt(5)) over fan_in = in: bound sqrt(6 / ((1 + 5) · in)).
    const double bound = 1.0 / std::sqrt(double(sites_[s].in));
    float* a = A(params_.data(), s, 0);
    const std::size_t count = (std::size_t)layers * config.rank * sites_[s].in;
    for (std::size_t i = 0; i < count; i++) a[i] = float(bound * (2.0 * rng.uniform() - 1.0));
  }
}

std::vector<ParameterTensor> LoraAdapters::parameter_tensors() const {
  // ParameterTensor holds a C string: one static name per target and matrix (kLoraTargets' order).
  static const std::array<const char*, kLoraTargets.size()> a_names = {
      "lora_A.q",    "lora_A.k",   "lora_A.v",       "lora_A.o",  "lora_A.gate",  "lora_A.up",
      "lora_A.down", "lora_A.qkv", "lora_A.attproj", "lora_A.fc", "lora_A.fcproj"};
  static const std::array<const char*, kLoraTargets.size()> b_names = {
      "lora_B.q",    "lora_B.k",   "lora_B.v",       "lora_B.o",  "lora_B.gate",  "lora_B.up",
      "lora_B.down", "lora_B.qkv", "lora_B.attproj", "lora_B.fc", "lora_B.fcproj"};
  std::vector<ParameterTensor> tensors;
  const std::size_t L = layers_, r = config_.rank;
  for (const LoraSite& s : sites_) {
    const int index = target_index(s.target);
    tensors.push_back({a_names[index], L * r * s.in, true, layers_});
    tensors.push_back({b_names[index], L * s.out * r, true, layers_});
  }
  return tensors;
}

float* LoraAdapters::A(float* values, std::size_t s, int layer) const {
  return values + offsets_[s] + (std::size_t)layer * config_.rank * sites_[s].in;
}

float* LoraAdapters::B(float* values, std::size_t s, int layer) const {
  return values + offsets_[s] + (std::size_t)layers_ * config_.rank * sites_[s].in +
         (std::size_t)layer * sites_[s].out * config_.rank;
}

void LoraAdapters::add_output(int tensor, int layer, float* out, const float* x, int N) const {
  const int r = config_.rank;
  for (std::size_t s = 0; s < sites_.size(); s++) {
    const LoraSite& site = sites_[s];
    if (site.tensor != tensor) continue;
    if (scratch_.size() < (std::size_t)N * r) scratch_.resize((std::size_t)N * r);
    lora_forward<float>(out + site.row_offset, site.rows, scratch_.data(), x, A(params_.data(), s, layer),
                        B(params_.data(), s, layer), lora_scale(config_), N, site.in, site.out, r);
  }
}

void LoraAdapters::backward(int tensor, int layer, float* dx, const float* dout, const float* x, int N) const {
  const int r = config_.rank;
  const float scale = lora_scale(config_);
  for (std::size_t s = 0; s < sites_.size(); s++) {
    const LoraSite& site = sites_[s];
    if (site.tensor != tensor) continue;
    if (scratch_.size() < 2 * (std::size_t)N * r) scratch_.resize(2 * (std::size_t)N * r);
    float *xa = scratch_.data(), *dxa = xa + (std::size_t)N * r;
    const float* a = A(params_.data(), s, layer);
    // xa = scale · x · Aᵀ again: recomputing it (N·r·in) is cheaper than keeping it per layer.
    gemm(false, true, N, r, site.in, scale, x, site.in, a, site.in, 0.0f, xa, r);
    lora_backward<float>(dx, A(grads_.data(), s, layer), B(grads_.data(), s, layer), dxa, dout + site.row_offset,
                         site.rows, x, xa, a, B(params_.data(), s, layer), scale, N, site.in, site.out, r);
  }
}

void LoraAdapters::merge_into(float* params) const {
  for (std::size_t s = 0; s < sites_.size(); s++) {
    const LoraSite& site = sites_[s];
    for (int l = 0; l < layers_; l++) {
      float* rows = params + site.offset + l * site.layer_stride + (std::size_t)site.row_offset * site.in;
      lora_merge(rows, A(params_.data(), s, l), B(params_.data(), s, l), lora_scale(config_), site.in, site.out,
                 config_.rank);
    }
  }
}

}  // namespace adjoint
