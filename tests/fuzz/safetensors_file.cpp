// Safetensors files, read on their own and as a Hugging Face folder's model.safetensors beside a
// fixed config.json, once for a tiny Llama and once for a tiny GPT-2 (the ones
// tests/fuzz/make_corpus.py writes seeds for; GPT-2's Conv1D matrices are stored transposed): any
// bytes load or give an exception, never a crash, a read outside the file, an allocation larger
// than the file justifies, or a model holding a value that is not finite; and what loads in fp32
// loads as a frozen bf16 base too.
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adjoint/hf_checkpoint.hpp"
#include "adjoint/safetensors.hpp"
#include "fuzz_support.hpp"

namespace {

// Keep in step with LLAMA_CONFIG_TENSORS and GPT2_CONFIG_TENSORS in make_corpus.py.
constexpr const char* kLlamaConfig =
    R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 16,
        "max_position_embeddings": 4, "tie_word_embeddings": true})";
constexpr const char* kGpt2Config =
    R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 16,
        "n_positions": 4})";

// A folder holding `config`; the input is written into it as model.safetensors.
std::string make_folder(const std::string& name, const char* config) {
  std::filesystem::create_directories(adjoint::fuzz::work_dir() / name);
  adjoint::fuzz::write_file(name + "/config.json", reinterpret_cast<const std::uint8_t*>(config),
                            std::char_traits<char>::length(config));
  return (adjoint::fuzz::work_dir() / name).string();
}

// Converts every tensor, so a view reaching past the mapping is a sanitizer report.
void read_every_tensor(const std::string& path) {
  const adjoint::SafetensorsFile file(path);
  std::vector<float> values;
  for (const auto& [name, view] : file.tensors()) {
    values.resize(view.elements);
    adjoint::tensor_to_float(view, 0, view.elements, values.data());
  }
}

void load_as_folder(const std::string& dir) {
  std::unique_ptr<adjoint::Model> model;
  try {
    model = adjoint::load_hf_folder(dir);
  } catch (const std::exception&) {
    return;
  }
  try {
    // As a frozen base: a folder of BF16 matrices then stays bf16, mapped or copied, every value
    // read by the finiteness check (its fp32 arena is mostly unmapped: nothing else to read).
    adjoint::load_hf_folder(dir, /*frozen_bf16=*/true);
  } catch (const std::exception&) {
    std::abort();  // the same file loaded in fp32: it must load as bf16 too
  }
  adjoint::fuzz::require_finite(model->params_memory(), model->num_parameters());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string llama = make_folder("llama", kLlamaConfig);
  static const std::string gpt2 = make_folder("gpt2", kGpt2Config);
  const std::string path = adjoint::fuzz::write_file("llama/model.safetensors", data, size);
  try {
    read_every_tensor(path);
  } catch (const std::exception&) {
    return 0;
  }
  load_as_folder(llama);
  std::filesystem::copy_file(path, gpt2 + "/model.safetensors", std::filesystem::copy_options::overwrite_existing);
  load_as_folder(gpt2);
  return 0;
}
