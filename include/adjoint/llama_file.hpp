// Llama model files in llm.c's Llama 3 checkpoint format (train_llama3.py's write_model): a header
// of 256 int32 and 256 float32, then the parameters in LlamaParameters order, fp32 (version 3).
//
// int header: magic 20240803, version, maxT, V, L, NH, NKV, C, multiple_of, use_scaled_rope,
// major and minor version; float header: ffn_dim_multiplier, norm_eps, rope_theta. llm.c's layout
// always ends with the (V,C) LM head; our additions in fields llm.c leaves zero: int [12] = 1 marks
// a tied head (the LM head slot then repeats wte, and loading checks nothing else), int [13] the
// RoPE scaling's original context length, float [3..5] its factor, low and high frequency factors
// (zero: llm.c's fixed 8192, 8, 1, 4).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/checkpoint.hpp"
#include "adjoint/llama.hpp"

namespace adjoint {

inline constexpr std::int32_t kLlamaFileMagic = 20240803;
inline constexpr std::int32_t kLlamaFileVersion = 3;      // fp32
inline constexpr std::int32_t kLlamaFileVersionBf16 = 5;  // bf16: rejected until bf16 exists

// The magic number a file starts with (0 when it is shorter than 4 bytes); throws when it cannot
// be opened. For telling GPT-2 files from Llama files.
std::int32_t file_magic(const std::string& path);
// Reads the header; throws a one-line error naming the file on a wrong magic or version (bf16
// named), an impossible config, or a size that does not match the config.
LlamaConfig read_llama_config(const std::string& path);
// Also refuses a value that is not finite, naming its tensor and index.
std::unique_ptr<Llama> load_llama(const std::string& path);
// Writes values (the model's parameters or gradients) in the file format, atomically.
void save_llama_file(const std::string& path, const LlamaConfig& config, const float* values);

// Llama training-state files: the model file's header with magic 20261124 and the progress in
// int fields [16, 24), then parameters, AdamW m, AdamW v.
inline constexpr std::int32_t kLlamaStateMagic = 20261124;
LlamaConfig read_llama_state_config(const std::string& path);
void save_llama_state(const std::string& path, const Llama& model, const float* m, const float* v,
                      const TrainingProgress& progress);
// Checks the file's shape against the model's; fills parameters, m and v (each value finite);
// returns the progress.
TrainingProgress load_llama_state(const std::string& path, Llama& model, float* m, float* v);

}  // namespace adjoint
