// Hugging Face folders: config.json, the safetensors files, and HF's tensor layouts against ours.
#include "hf_folder.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "adjoint/bf16.hpp"
#include "adjoint/file_io.hpp"
#include "adjoint/hf_checkpoint.hpp"
#include "adjoint/llama.hpp"

namespace adjoint {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::size_t kMaxJsonFile = 16u << 20;  // config.json or the shard index: a few KB in practice

// A JSON file of the folder, read whole after its size is checked.
json read_json_file(const std::string& path) {
  std::FILE* file = open_for_reading(path);
  const std::size_t size = file_size(file);
  std::string text(size <= kMaxJsonFile ? size : 0, '\0');
  const bool too_large = size > kMaxJsonFile, read = std::fread(text.data(), 1, text.size(), file) == text.size();
  std::fclose(file);
  if (too_large) throw std::runtime_error(path + ": larger than " + std::to_string(kMaxJsonFile >> 20) + " MB");
  if (!read) throw std::runtime_error(path + ": truncated file");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": bad JSON: " + e.what());
  }
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// A shard's file name from the index: a plain name inside the folder.
std::string shard_name(const json& value, const std::string& index_path, const std::string& tensor) {
  const std::string name = value.is_string() ? value.get<std::string>() : "";
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    throw std::runtime_error(index_path + ": tensor '" + tensor + "': weight_map needs a file name in the folder");
  }
  return name;
}

// HF's row of our row r in a rope_permuted tensor: per head of hs rows, our pair (2i, 2i+1) is
// HF's rows i and hs/2 + i (transformers' convert script permutes Meta's weights this way so its
// rotate-half RoPE computes Meta's interleaved one).
std::size_t hf_row(std::size_t r, std::size_t hs) {
  const std::size_t head = r / hs, within = r % hs;
  return head * hs + (within % 2) * (hs / 2) + within / 2;
}

void fill_ours(const TensorView& view, const HfTensor& t) {
  const std::size_t rows = t.shape[0], cols = t.shape.size() > 1 ? t.shape[1] : 1;
  switch (t.layout) {
    case HfLayout::same: tensor_to_float(view, 0, view.elements, t.ours); return;
    case HfLayout::transposed: {
      std::vector<float> row(cols);
      for (std::size_t i = 0; i < rows; ++i) {
        tensor_to_float(view, i * cols, cols, row.data());
        for (std::size_t o = 0; o < cols; ++o) t.ours[o * rows + i] = row[o];
      }
      return;
    }
    case HfLayout::rope_permuted:
      for (std::size_t r = 0; r < rows; ++r)
        tensor_to_float(view, hf_row(r, rows / t.heads) * cols, cols, t.ours + r * cols);
      return;
  }
}

// Drops the whole pages of [begin, begin + bytes) of a read-only file mapping from the process
// (the page cache keeps them; a later read would fault them back in).
void release_mapped_pages(const std::byte* begin, std::size_t bytes) {
  const auto first = (reinterpret_cast<std::uintptr_t>(begin) + 4095) / 4096 * 4096;
  const auto end = (reinterpret_cast<std::uintptr_t>(begin) + bytes) / 4096 * 4096;
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
}

// Our row-major elements of t as bf16 into out, from a BF16 view in HF's layout.
void fill_bf16(const TensorView& view, const HfTensor& t, std::uint16_t* out) {
  const std::size_t rows = t.shape[0], cols = t.shape[1];
  const std::byte* in = view.data;
  switch (t.layout) {
    case HfLayout::same: std::memcpy(out, in, view.elements * 2); return;
    case HfLayout::transposed:
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t o = 0; o < cols; ++o) std::memcpy(out + o * rows + i, in + 2 * (i * cols + o), 2);
      return;
    case HfLayout::rope_permuted:
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(out + r * cols, in + 2 * hf_row(r, rows / t.heads) * cols, 2 * cols);
      return;
  }
}

// The bf16 values standing for matrix t: the file's own when they can be (our layout, aligned),
// else a copy in our layout.
const std::uint16_t* stand_in_bf16(const TensorView& view, const HfTensor& t, Bf16Parameters& bf16) {
  const auto* mapped = reinterpret_cast<const std::uint16_t*>(view.data);
  std::uint16_t* owned = bf16.owned(t.ours);
  if (!owned && t.layout == HfLayout::same && reinterpret_cast<std::uintptr_t>(mapped) % 2 == 0) {
    bf16.map(t.ours, view.elements, mapped);
    return mapped;
  }
  if (!owned) owned = bf16.copy(t.ours, view.elements);
  fill_bf16(view, t, owned);
  release_mapped_pages(view.data, view.elements * 2);  // never read again: the copy stands in
  return owned;
}

// The tensor's values in HF's layout: ours as they are, or rearranged into scratch.
const float* hf_values(const HfTensor& t, std::vector<float>& scratch) {
  const std::size_t rows = t.shape[0], cols = t.shape.size() > 1 ? t.shape[1] : 1;
  if (t.layout == HfLayout::same) return t.ours;
  scratch.resize(rows * cols);
  if (t.layout == HfLayout::transposed) {
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t o = 0; o < cols; ++o) scratch[i * cols + o] = t.ours[o * rows + i];
  } else {
    for (std::size_t r = 0; r < rows; ++r)
      std::copy(t.ours + r * cols, t.ours + (r + 1) * cols, scratch.begin() + hf_row(r, rows / t.heads) * cols);
  }
  return scratch.data();
}

}  // namespace

// ---- config.json

HfConfig::HfConfig(const std::string& dir) : path_((fs::path(dir) / "config.json").string()) {
  if (!fs::exists(path_)) throw std::runtime_error(path_ + ": missing (not a Hugging Face model folder)");
  json_ = read_json_file(path_);
  if (!json_.is_object()) throw std::runtime_error(path_ + ": bad JSON: not an object");
}

std::string HfConfig::architecture() const {
  const json* value = json_.contains("architectures") ? &json_["architectures"] : nullptr;
  if (!value || !value->is_array() || value->empty() || !(*value)[0].is_string()) {
    throw std::runtime_error(path_ + ": architectures is missing (LlamaForCausalLM or GPT2LMHeadModel)");
  }
  return (*value)[0].get<std::string>();
}

int HfConfig::integer(const char* key, int lo, int hi) const {
  if (!has(key)) throw std::runtime_error(path_ + ": " + key + " is missing");
  const json& value = json_[key];
  if (!value.is_number_integer() || value.get<std::int64_t>() < lo || value.get<std::int64_t>() > hi) {
    throw std::runtime_error(path_ + ": " + key + " = " + value.dump() + " is outside [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
  }
  return value.get<int>();
}

double HfConfig::number(const char* key, double lo, double hi) const {
  if (!has(key)) throw std::runtime_error(path_ + ": " + key + " is missing");
  const json& value = json_[key];
  if (!value.is_number() || !(value.get<double>() > lo && value.get<double>() < hi)) {
    throw std::runtime_error(path_ + ": " + key + " = " + value.dump() + " is outside (" + json(lo).dump() + ", " +
                             json(hi).dump() + ")");
  }
  return value.get<double>();
}

bool HfConfig::flag(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  if (!json_[key].is_boolean())
    throw std::runtime_error(path_ + ": " + key + " = " + json_[key].dump() + " is not true or false");
  return json_[key].get<bool>();
}

void HfConfig::unsupported(const char* key, const std::string& why) const {
  throw std::runtime_error(path_ + ": " + key + " = " + json_.value(key, json()).dump() + " is not supported (" + why +
                           ")");
}

void HfConfig::require(const char* key, const json& value, const std::string& why) const {
  if (has(key) && json_[key] != value) unsupported(key, why);
}

double json_float(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
  return std::stod(std::string(text, end));
}

// ---- The folder's tensors

HfWeights::HfWeights(const std::string& dir)
    : dir_(dir), index_path_((fs::path(dir) / "model.safetensors.index.json").string()) {
  if (!fs::exists(index_path_)) {
    index_path_ = (fs::path(dir) / "model.safetensors").string();
    files_.push_back(std::make_unique<SafetensorsFile>(index_path_));
    for (const auto& [name, view] : files_.back()->tensors()) where_[name] = files_.back().get();
    return;
  }
  const json index = read_json_file(index_path_);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
    throw std::runtime_error(index_path_ + ": weight_map is missing");
  }
  std::map<std::string, const SafetensorsFile*> opened;
  for (const auto& [tensor, file] : index["weight_map"].items()) {
    const std::string name = shard_name(file, index_path_, tensor);
    if (!opened.count(name)) {
      files_.push_back(std::make_unique<SafetensorsFile>((fs::path(dir) / name).string()));
      opened[name] = files_.back().get();
    }
    const SafetensorsFile* shard = opened[name];
    if (!shard->contains(tensor)) {
      throw std::runtime_error(shard->path() + ": tensor '" + tensor + "' is missing (the index puts it there)");
    }
    where_[tensor] = shard;
  }
  for (const auto& file : files_)
    for (const auto& [tensor, view] : file->tensors())
      if (!where_.count(tensor))
        throw std::runtime_error(file->path() + ": tensor '" + tensor + "' is not in the index");
}

const TensorView& HfWeights::tensor(const HfTensor& wanted) const {
  const auto found = where_.find(wanted.name);
  if (found == where_.end()) throw std::runtime_error(index_path_ + ": tensor '" + wanted.name + "' is missing");
  const TensorView& view = found->second->tensor(wanted.name);
  if (view.shape != wanted.shape) {
    throw std::runtime_error(found->second->path() + ": tensor '" + wanted.name + "' has shape " +
                             shape_text(view.shape) + ", config.json needs " + shape_text(wanted.shape));
  }
  return view;
}

void HfWeights::load(const std::vector<HfTensor>& table, bool (*ignorable)(const std::string& name),
                     Bf16Parameters* bf16) const {
  std::set<std::string> used;
  for (const HfTensor& t : table) {
    const TensorView& view = tensor(t);
    const auto not_finite = [&](float value) {
      return std::runtime_error(where_.at(t.name)->path() + ": tensor '" + t.name + "' holds " + std::to_string(value) +
                                ", not a finite number");
    };
    if (bf16 && t.shape.size() == 2 && !t.looked_up) {
      if (view.dtype != TensorDtype::bf16) throw std::logic_error(t.name + " is not BF16");
      const std::uint16_t* values = stand_in_bf16(view, t, *bf16);
      const std::uint16_t* bad = std::find_if_not(values, values + view.elements, bf16_is_finite);
      if (bad != values + view.elements) throw not_finite(bf16_to_float(*bad));
    } else {
      fill_ours(view, t);
      // Whatever the layout, the tensor fills view.elements floats from t.ours.
      const float* bad = std::find_if(t.ours, t.ours + view.elements, [](float v) { return !std::isfinite(v); });
      if (bad != t.ours + view.elements) throw not_finite(*bad);
      // Never read again: the fp32 copy replaces it (the files stay mapped while loading, and
      // for as long as bf16 stand-ins point into them).
      release_mapped_pages(view.data, view.elements * (view.dtype == TensorDtype::f32 ? 4 : 2));
    }
    used.insert(t.name);
  }
  for (const auto& [name, file] : where_) {
    if (!used.count(name) && !ignorable(name)) {
      throw std::runtime_error(file->path() + ": tensor '" + name + "' is not part of the model config.json describes");
    }
  }
}

bool HfWeights::matrices_are_bf16() const {
  for (const auto& [name, file] : where_) {
    const TensorView& view = file->tensor(name);
    if (view.shape.size() == 2 && view.dtype != TensorDtype::bf16) return false;
  }
  return true;
}

void save_hf_files(const std::string& dir, const json& config, const std::vector<HfTensor>& table) {
  fs::create_directories(dir);
  if (fs::exists(fs::path(dir) / "model.safetensors.index.json")) {
    throw std::runtime_error(dir +
                             ": holds a sharded checkpoint (model.safetensors.index.json); write to another folder");
  }
  std::vector<std::vector<float>> scratch(table.size());
  std::vector<TensorToWrite> tensors;
  for (std::size_t i = 0; i < table.size(); ++i) {
    tensors.push_back({table[i].name, table[i].shape, hf_values(table[i], scratch[i])});
  }
  save_safetensors((fs::path(dir) / "model.safetensors").string(), tensors);
  const std::string text = config.dump(2) + "\n";
  AtomicFileWriter out((fs::path(dir) / "config.json").string());
  out.write(text.data(), text.size());
  out.commit();
}

// ---- Which model

bool is_hf_folder(const std::string& path) { return fs::is_directory(path); }

namespace {

bool is_llama(const HfConfig& config) {
  const std::string architecture = config.architecture();
  if (architecture == "LlamaForCausalLM") return true;
  if (architecture == "GPT2LMHeadModel") return false;
  throw std::runtime_error(config.path() + ": architectures = \"" + architecture +
                           "\" is not supported (LlamaForCausalLM or GPT2LMHeadModel)");
}

}  // namespace

bool hf_folder_is_llama(const std::string& dir) { return is_llama(HfConfig(dir)); }

std::unique_ptr<Model> load_hf_folder(const std::string& dir, bool frozen_bf16) {
  const HfConfig config(dir);
  std::unique_ptr<Model> model;
  if (is_llama(config)) {
    model = load_llama_folder(dir, config, frozen_bf16);
  } else {
    model = load_gpt2_folder(dir, config, frozen_bf16);
  }
  return model;
}

}  // namespace adjoint
