// Model files (llm.c's GPT-2 checkpoint format, so llm.c files load here and ours there) and
// training-state files (everything `train --resume` needs to continue bit-identically).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/gpt2.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {

// llm.c: header of 256 int32: magic, version 3 (fp32, padded vocabulary), maxT, V, L, NH, C,
// Vp; then the parameters in ParameterTensors order.
inline constexpr std::int32_t kModelFileMagic = 20240326;
inline constexpr std::int32_t kModelFileVersion = 3;

// Reads the header only; throws on a missing file, wrong magic/version or impossible config.
GPT2Config read_model_config(const std::string& path);
// Loads a model file; throws with a one-line message naming the file on any defect
// (missing, wrong magic or version, truncated, trailing bytes).
std::unique_ptr<GPT2> load_model(const std::string& path);
// Writes values (the model's parameter count of floats: parameters or gradients) in the
// model-file format, atomically.
void save_model_file(const std::string& path, const GPT2Config& config, const float* values);

// Where a run is: saved beside the parameters and the optimizer moments.
struct TrainingProgress {
  std::int64_t step = 0;               // completed optimizer steps
  std::uint64_t data_position = 0;     // the train loader's position
  std::uint64_t rng_state = 0;         // the sampling RNG
  std::int32_t batch_size = 0;         // B and T the run was started with: resume checks them
  std::int32_t seq_len = 0;
};

inline constexpr std::int32_t kStateFileMagic = 20261122;
inline constexpr std::int32_t kStateFileVersion = 1;

void save_training_state(const std::string& path, const GPT2& model, const AdamW& optimizer,
                         const TrainingProgress& progress);
// Reads the config (to build the model and optimizer), then fills them and returns progress.
GPT2Config read_training_state_config(const std::string& path);
TrainingProgress load_training_state(const std::string& path, GPT2& model, AdamW& optimizer);

}  // namespace adjoint
