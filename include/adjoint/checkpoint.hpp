// Model files (llm.c's GPT-2 checkpoint format, so llm.c files load here and ours there) and
// training-state files (everything `train --resume` needs to continue bit-identically).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "adjoint/gpt2.hpp"
#include "adjoint/model.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {

// llm.c: header of 256 int32: magic, version 3 (fp32, padded vocabulary), maxT, V, L, NH, C,
// Vp; then the parameters in ParameterTensors order.
inline constexpr std::int32_t kModelFileMagic = 20240326;
inline constexpr std::int32_t kModelFileVersion = 3;

// Reads the header and checks the file's size against it (before anything is allocated); throws
// on a missing file, wrong magic/version, impossible config or a size the header does not give.
GPT2Config read_model_config(const std::string& path);
// Loads a model file; throws with a one-line message naming the file on any defect
// (missing, wrong magic or version, truncated, trailing bytes, a parameter that is not finite).
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
  std::int64_t skipped_steps = 0;      // steps skipped for a non-finite loss or gradient norm
};

inline constexpr std::int32_t kStateFileMagic = 20261122;
inline constexpr std::int32_t kStateFileVersion = 1;

void save_training_state(const std::string& path, const GPT2& model, const AdamW& optimizer,
                         const TrainingProgress& progress);
// Reads the config (to build the model and optimizer), then fills them and returns progress.
// Every field is range-checked (step in [0, 2^31), B and T positive, T <= maxT, values finite).
GPT2Config read_training_state_config(const std::string& path);
// Throws a one-line error naming path when a field read from a state file is out of range.
void check_progress(const TrainingProgress& progress, int max_seq_len, const std::string& path);
TrainingProgress load_training_state(const std::string& path, GPT2& model, AdamW& optimizer);

// Throws "<path>: <what> <tensor>[<i>] is nan" (or inf) for the first of the model's
// num_parameters() values that is not finite; files are checked so when they are loaded.
void check_finite(const Model& model, const float* values, const std::string& path, const char* what);
// check_finite for AdamW's second moments v, which must also not be negative (a negative v makes
// the next update's sqrt(v) NaN): "<path>: AdamW second moment of <tensor>[<i>] is -1, below 0 ...".
void check_second_moments(const Model& model, const float* v, const std::string& path);

// A run folder's checkpoint is one unit: DIR/checkpoint-<step>/ holds model.bin and state.bin
// of one step, and DIR/latest is a symlink to the newest such folder. DIR/model.bin and
// DIR/state.bin are symlinks through latest, so both always show the same step.
// save_checkpoint writes DIR/checkpoint-<step>.tmp/, syncs it, renames it into place, then
// replaces latest atomically (a new symlink renamed over it) and removes the older folder. A
// crash at any point leaves the previous checkpoint or the new one, plus temporaries that
// remove_stale_checkpoints removes.
void save_checkpoint(const std::string& dir, const Model& model, const AdamW& optimizer,
                     const TrainingProgress& progress);
// Bytes one checkpoint of this model takes on disk (model.bin and state.bin).
std::uint64_t checkpoint_bytes(std::size_t num_parameters);
// Removes what an interrupted save_checkpoint leaves in dir: "*.tmp" entries and checkpoint
// folders latest does not point to.
void remove_stale_checkpoints(const std::string& dir);
// Removes dir's checkpoint (latest, model.bin, state.bin and the checkpoint folders).
void remove_checkpoint(const std::string& dir);

}  // namespace adjoint
