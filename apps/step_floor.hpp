// `adjoint bench`'s floor of a training step: each part of the step (for a full model the forward,
// the backward and AdamW; for LoRA the frozen forward, the input-gradient backward, the adapters
// and their AdamW) with the FLOPs and bytes it cannot avoid, against the measured sgemm peak and
// memory bandwidth. See docs/performance.md, "Each part of the step against its floor".
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "adjoint/model.hpp"

namespace adjoint::cli {

// A part's measured time and what it must do.
struct StepPart {
  std::string name;
  double ms, flops, bytes;
  bool optimizer = false;  // AdamW's passes: not part of the forward+backward
};

// What the bench timed at one (B, T): forward_ms < 0 when the forward was not timed alone (the
// tensor engine), adapters_*_ms < 0 when there are no adapters (or they were not timed).
struct StepTimes {
  double forward_ms = -1, fwdbwd_ms = 0, step_ms = 0;
  double adapters_forward_ms = -1, adapters_backward_ms = -1;
};

// The optimizer's bytes: AdamW reads parameters, gradients and both moments and writes parameters
// and moments (28 bytes a parameter).
double optimizer_bytes(std::size_t parameters);

// The parts of a step of model (a LoraModel has its own) at (B, T) with their times.
std::vector<StepPart> step_parts(const Model& model, int B, int T, const StepTimes& times);

// A step's floors (ms): the larger of the parts' summed FLOPs at the peak and their summed bytes at
// the bandwidth, over the forward+backward parts and over all parts.
struct StepFloors {
  double compute_ms = 0, fwdbwd_ms = 0, step_ms = 0;
};
StepFloors step_floors(const std::vector<StepPart>& parts, double peak_gflops, double gbps);

// One line: each part's time, its compute and memory floors, and time / the larger.
std::string describe_parts(const std::vector<StepPart>& parts, double peak_gflops, double gbps);

}  // namespace adjoint::cli
