// LoRA's files (adjoint/lora.hpp): the adapters' own file and the training state, each a header of
// 32 int32 (magic, version, rank, alpha's bits, the base's L and C, its parameter count as two
// int32 (low, high), the target count and the targets' kLoraTargets indices in arena order,
// then from int 16 the progress, zero in an adapter file), then the adapters' floats (and in a
// state, AdamW's m and v). Written atomically; read with every reader rule (docs/design.md, Files).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <memory>
#include <stdexcept>
#include <string>

#include "adjoint/file_io.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {

namespace {

constexpr std::int32_t kAdapterMagic = kLoraAdapterMagic;
constexpr std::int32_t kStateMagic = 20261129;
constexpr std::int32_t kVersion = 1;
constexpr int kHeaderInts = 32, kFirstTarget = 9, kProgressField = 16;
static_assert(kProgressField * 4 + sizeof(TrainingProgress) <= kHeaderInts * 4);
using Header = std::array<std::int32_t, kHeaderInts>;

// L, C and the parameter count (low, high int32) of a Llama or GPT-2 base.
std::array<std::int32_t, 4> base_shape(const Model& base) {
  const auto* llama = dynamic_cast<const Llama*>(&base);
  const int L = llama ? llama->config().num_layers : dynamic_cast<const GPT2&>(base).config().num_layers;
  const int C = llama ? llama->config().channels : dynamic_cast<const GPT2&>(base).config().channels;
  const std::uint64_t n = base.num_parameters();
  return {L, C, std::int32_t(n & 0xffffffffu), std::int32_t(n >> 32)};
}

// The sites of base for the settings c (a Llama's or a GPT-2's).
std::vector<LoraSite> sites_of(const Model& base, const LoraConfig& c) {
  if (const auto* llama = dynamic_cast<const Llama*>(&base)) return llama_lora_sites(llama->config(), c);
  return gpt2_lora_sites(dynamic_cast<const GPT2&>(base).config(), c);
}

Header header_of(const LoraModel& model, std::int32_t magic) {
  const LoraConfig& c = model.adapters().config();
  Header h{};
  h[0] = magic, h[1] = kVersion, h[2] = c.rank, h[3] = std::bit_cast<std::int32_t>(c.alpha);
  const auto shape = base_shape(model.base());
  std::copy(shape.begin(), shape.end(), h.begin() + 4);
  h[8] = std::int32_t(c.targets.size());
  for (std::size_t t = 0; t < c.targets.size(); t++) {
    h[kFirstTarget + t] =
        std::int32_t(std::find(kLoraTargets.begin(), kLoraTargets.end(), c.targets[t]) - kLoraTargets.begin());
  }
  return h;
}

// The settings a header holds, checked against the base; throws naming the file and the defect.
LoraConfig settings_of(const Header& h, std::int32_t magic, const Model& base, const std::string& path) {
  if (h[0] != magic) {
    throw std::invalid_argument(path + (magic == kAdapterMagic ? ": not a LoRA adapter file (bad magic)"
                                                               : ": not a LoRA training state (bad magic)"));
  }
  if (h[1] != kVersion) throw std::invalid_argument(path + ": unsupported LoRA file version " + std::to_string(h[1]));
  const auto shape = base_shape(base);
  if (!std::equal(shape.begin(), shape.end(), h.begin() + 4)) {
    throw std::invalid_argument(path + ": the adapters are for another base model (L, C or parameter count differ)");
  }
  if (h[8] < 1 || h[8] > kProgressField - kFirstTarget) {
    throw std::invalid_argument(path + ": bad LoRA target count " + std::to_string(h[8]));
  }
  LoraConfig c{h[2], std::bit_cast<float>(h[3]), {}};
  for (int t = 0; t < h[8]; t++) {
    const std::int32_t index = h[kFirstTarget + t];
    if (index < 0 || index >= int(kLoraTargets.size())) {
      throw std::invalid_argument(path + ": bad LoRA target index " + std::to_string(index));
    }
    c.targets.push_back(kLoraTargets[index]);
  }
  try {
    validate_lora_config(c);
    sites_of(base, c);  // the targets and the rank against the base
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  return c;
}

std::string describe(const LoraConfig& c) {
  std::string targets;
  for (const std::string& t : c.targets) targets += (targets.empty() ? "" : ",") + t;
  return fmt::format("rank {} alpha {} on {}", c.rank, c.alpha, targets);
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Opens path and checks its header (settings equal to model's) and its size (the header's floats
// sets of adapters, before anything is read into them).
File open_checked(const std::string& path, std::int32_t magic, const LoraModel& model, int float_sets, Header& h) {
  File file(open_for_reading(path), std::fclose);
  read_exact(file.get(), h.data(), sizeof(h), path, "LoRA header");
  const LoraConfig c = settings_of(h, magic, model.base(), path);
  const LoraConfig& ours = model.adapters().config();
  if (c.rank != ours.rank || c.alpha != ours.alpha || c.targets != ours.targets) {
    throw std::invalid_argument(
        fmt::format("{}: the adapters are {}, this run's {}", path, describe(c), describe(ours)));
  }
  const std::size_t expected = sizeof(h) + float_sets * model.num_parameters() * sizeof(float);
  if (file_size(file.get()) != expected) {
    throw std::invalid_argument(
        fmt::format("{}: {} bytes, the header implies {}", path, file_size(file.get()), expected));
  }
  return file;
}

}  // namespace

LoraConfig read_lora_config(const std::string& path, const Model& base) {
  File file(open_for_reading(path), std::fclose);
  Header h{};
  read_exact(file.get(), h.data(), sizeof(h), path, "LoRA header");
  return settings_of(h, kAdapterMagic, base, path);
}

void LoraModel::save_file(const std::string& path, const float* values) const {
  const Header h = header_of(*this, kAdapterMagic);
  AtomicFileWriter file(path);
  file.write(h.data(), sizeof(h));
  file.write(values, num_parameters() * sizeof(float));
  file.commit();
}

void LoraModel::load_adapters(const std::string& path) {
  Header h{};
  File file = open_checked(path, kAdapterMagic, *this, 1, h);
  read_exact(file.get(), params_memory(), num_parameters() * sizeof(float), path, "LoRA adapters");
  check_finite(*this, params_memory(), path, "LoRA adapter");
}

void LoraModel::save_training_state(const std::string& path, const AdamW& optimizer,
                                    const TrainingProgress& progress) const {
  Header h = header_of(*this, kStateMagic);
  std::memcpy(h.data() + kProgressField, &progress, sizeof(progress));
  const std::size_t bytes = num_parameters() * sizeof(float);
  AtomicFileWriter file(path);
  file.write(h.data(), sizeof(h));
  file.write(params_memory(), bytes);
  file.write(optimizer.m(), bytes);
  file.write(optimizer.v(), bytes);
  file.commit();
}

TrainingProgress LoraModel::load_training_state(const std::string& path, AdamW& optimizer) {
  Header h{};
  File file = open_checked(path, kStateMagic, *this, 3, h);
  TrainingProgress progress;
  std::memcpy(static_cast<void*>(&progress), h.data() + kProgressField, sizeof(progress));
  check_progress(progress, max_seq_len(), path);
  const std::size_t bytes = num_parameters() * sizeof(float);
  read_exact(file.get(), params_memory(), bytes, path, "LoRA adapters");
  read_exact(file.get(), optimizer.m(), bytes, path, "AdamW first moments");
  read_exact(file.get(), optimizer.v(), bytes, path, "AdamW second moments");
  check_finite(*this, params_memory(), path, "LoRA adapter");
  check_finite(*this, optimizer.m(), path, "AdamW first moment of");
  check_second_moments(*this, optimizer.v(), path);
  return progress;
}

}  // namespace adjoint
