// Safetensors files, read on their own and as a Hugging Face folder's model.safetensors beside a
// fixed config.json (a tiny Llama, the one tests/fuzz/make_corpus.py writes seeds for): any bytes
// load or give an exception, never a crash, a read outside the file, an allocation larger than the
// file justifies, or a model holding a value that is not finite; and what loads in fp32 loads as a
// frozen bf16 base too.
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <vector>

#include "adjoint/hf_checkpoint.hpp"
#include "adjoint/safetensors.hpp"
#include "fuzz_support.hpp"

namespace {

// Keep in step with LLAMA_CONFIG in make_corpus.py.
constexpr const char* kConfig =
    R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "intermediate_size": 16,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1, "vocab_size": 16,
        "max_position_embeddings": 4, "tie_word_embeddings": true})";

const std::string& folder() {
  static const std::string path = [] {
    const std::filesystem::path dir = adjoint::fuzz::work_dir() / "folder";
    std::filesystem::create_directories(dir);
    adjoint::fuzz::write_file("folder/config.json", reinterpret_cast<const std::uint8_t*>(kConfig),
                              std::char_traits<char>::length(kConfig));
    return dir.string();
  }();
  return path;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& dir = folder();
  const std::string path = adjoint::fuzz::write_file("folder/model.safetensors", data, size);
  std::unique_ptr<adjoint::Model> model;
  try {
    read_every_tensor(path);
    model = adjoint::load_hf_folder(dir);
  } catch (const std::exception&) {
    return 0;
  }
  try {
    // As a frozen base: a folder of BF16 matrices then stays bf16, mapped or copied, every value
    // read by the finiteness check (its fp32 arena is mostly unmapped: nothing else to read).
    adjoint::load_hf_folder(dir, /*frozen_bf16=*/true);
  } catch (const std::exception&) {
    std::abort();  // the same file loaded in fp32: it must load as bf16 too
  }
  adjoint::fuzz::require_finite(model->params_memory(), model->num_parameters());
  return 0;
}
