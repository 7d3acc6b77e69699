// What the GPT-2 and Llama sides of Hugging Face folders share (src/llm/gpt2/hf.cpp,
// src/llm/llama/hf.cpp): config.json's keys, the folder's tensors across shards, and the table
// of HF tensors against our arena that serves loading and saving alike.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "adjoint/safetensors.hpp"

namespace adjoint {

class Bf16Parameters;
class GPT2;
class Llama;

// config.json, parsed, with readers of its keys whose errors name the file and the key.
class HfConfig {
 public:
  explicit HfConfig(const std::string& dir);
  const nlohmann::json& values() const { return json_; }
  const std::string& path() const { return path_; }
  // The first of "architectures" (a one-line error when absent or not a string).
  std::string architecture() const;
  bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }
  // An integer in [lo, hi]; missing, not an integer, or outside: one-line error.
  int integer(const char* key, int lo, int hi) const;
  int integer(const char* key, int lo, int hi, int fallback) const {
    return has(key) ? integer(key, lo, hi) : fallback;
  }
  // A finite number in (lo, hi).
  double number(const char* key, double lo, double hi) const;
  double number(const char* key, double lo, double hi, double fallback) const {
    return has(key) ? number(key, lo, hi) : fallback;
  }
  bool flag(const char* key, bool fallback) const;
  // Throws "<path>: <key> = <value> is not supported (<why>)".
  [[noreturn]] void unsupported(const char* key, const std::string& why) const;
  // Throws unless the key is absent, null, or equal to value.
  void require(const char* key, const nlohmann::json& value, const std::string& why) const;

 private:
  std::string path_;
  nlohmann::json json_;
};

// A float to JSON as its shortest decimal (1e-05, not 9.99999974737875e-06), so config.json reads
// as people write it and still gives back the same float.
double json_float(float value);

// How an HF tensor's values sit in ours.
enum class HfLayout {
  same,           // the same row-major values
  transposed,     // HF (rows, cols) is our (cols, rows): GPT-2's Conv1D weights
  rope_permuted,  // per head, HF's rows (first halves, then second halves) are our interleaved pairs
};

// One HF tensor and where it lives in our arena.
struct HfTensor {
  std::string name;
  std::vector<std::int64_t> shape;  // HF's
  float* ours;
  HfLayout layout = HfLayout::same;
  int heads = 0;  // rope_permuted: the heads its rows hold
  // Read row by row by the embedding lookup, a loop adjc differentiates: fp32 also in a frozen
  // bf16 base, where only the GEMMs' operands stay bf16.
  bool looked_up = false;
};

// The tensors of a folder: model.safetensors, or the shards model.safetensors.index.json lists.
class HfWeights {
 public:
  explicit HfWeights(const std::string& dir);
  bool contains(const std::string& name) const { return where_.count(name) != 0; }
  // Fills every table entry from the folder (checking each shape), then refuses tensors the
  // table does not have unless ignorable(name). With bf16, the matrices (2-D entries) are not
  // written to ours but stand in bf16: mapped from the file where the layout is ours, else copied
  // (into a block bf16 already owns for that range, or a new one).
  void load(const std::vector<HfTensor>& table, bool (*ignorable)(const std::string& name),
            Bf16Parameters* bf16 = nullptr) const;
  // Whether every 2-D tensor of the folder is BF16 (a base that can stay bf16).
  bool matrices_are_bf16() const;

 private:
  const TensorView& tensor(const HfTensor& wanted) const;

  std::string dir_, index_path_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> where_;
};

// Writes config.json and model.safetensors (fp32, the table's tensors in HF's layout) into dir,
// creating it; refuses a folder holding a sharded checkpoint (its index would shadow the new file).
void save_hf_files(const std::string& dir, const nlohmann::json& config, const std::vector<HfTensor>& table);

// Each model's side: its config from config.json and its folder, loaded.
// With frozen_bf16, a folder of bf16 matrices keeps them in bf16 (the models' frozen_bf16); a
// folder holding other dtypes loads into fp32 as without it.
std::unique_ptr<Llama> load_llama_folder(const std::string& dir, const HfConfig& config, bool frozen_bf16);
std::unique_ptr<GPT2> load_gpt2_folder(const std::string& dir, const HfConfig& config, bool frozen_bf16);

}  // namespace adjoint
