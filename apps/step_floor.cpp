#include "step_floor.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "adjoint/lora.hpp"

namespace adjoint::cli {
namespace {

constexpr double kFloat = sizeof(float);

// A full model: the forward reads the weights and writes the activations (a third of the FLOPs);
// the backward reads the weights and the activations and writes the gradients (two thirds).
std::vector<StepPart> full_model_parts(const Model& model, int B, int T, const StepTimes& t) {
  const double flops = model.step_flops(B, T), P = double(model.num_parameters());
  const double A = double(model.activation_floats(B, T));
  return {{"forward", t.forward_ms, flops / 3.0, (P + A) * kFloat},
          {"backward", t.fwdbwd_ms - t.forward_ms, flops * 2.0 / 3.0, (2.0 * P + A) * kFloat}};
}

// LoRA: the frozen base's forward and input-gradient backward each read its weights (at the width
// they are kept in) and the activations once; the adapters read A and B twice and write their
// gradients. The adapters' time (timed alone) is taken out of the forward's and the backward's.
std::vector<StepPart> lora_parts(const LoraModel& model, int B, int T, const StepTimes& t) {
  const LoraModel::StepFlops flops = model.flops_of_parts(B, T);
  const double weights = model.frozen_parameter_bytes(/*read_by_forward=*/true);
  const double A = double(model.activation_floats(B, T)) * kFloat;
  const double adapters_fwd = std::max(t.adapters_forward_ms, 0.0),
               adapters_bwd = std::max(t.adapters_backward_ms, 0.0);
  return {{"frozen forward", t.forward_ms - adapters_fwd, flops.frozen_forward, weights + A},
          {"input-gradient backward", t.fwdbwd_ms - t.forward_ms - adapters_bwd, flops.input_backward, weights + A},
          {"adapters", adapters_fwd + adapters_bwd, flops.adapters, 3.0 * double(model.num_parameters()) * kFloat}};
}

}  // namespace

double optimizer_bytes(std::size_t parameters) { return 7.0 * double(parameters) * kFloat; }

std::vector<StepPart> step_parts(const Model& model, int B, int T, const StepTimes& times) {
  const auto* lora = dynamic_cast<const LoraModel*>(&model);
  std::vector<StepPart> parts = lora ? lora_parts(*lora, B, T, times) : full_model_parts(model, B, T, times);
  if (times.forward_ms < 0) {  // not timed alone: the forward+backward is one part
    StepPart whole{"forward+backward", times.fwdbwd_ms, 0, 0};
    for (const StepPart& p : parts) {
      whole.flops += p.flops;
      whole.bytes += p.bytes;
    }
    parts = {whole};
  }
  parts.push_back({"optimizer", times.step_ms - times.fwdbwd_ms, 0.0, optimizer_bytes(model.num_parameters()), true});
  return parts;
}

StepFloors step_floors(const std::vector<StepPart>& parts, double peak_gflops, double gbps) {
  double fwdbwd_flops = 0, fwdbwd_bytes = 0, optimizer_flops = 0, optimizer_bytes = 0;
  for (const StepPart& p : parts) {
    (p.optimizer ? optimizer_flops : fwdbwd_flops) += p.flops;
    (p.optimizer ? optimizer_bytes : fwdbwd_bytes) += p.bytes;
  }
  const double compute_ms = (fwdbwd_flops + optimizer_flops) / (peak_gflops * 1e6);
  return {compute_ms, std::max(fwdbwd_flops / (peak_gflops * 1e6), fwdbwd_bytes / (gbps * 1e6)),
          std::max(compute_ms, (fwdbwd_bytes + optimizer_bytes) / (gbps * 1e6))};
}

std::string describe_parts(const std::vector<StepPart>& parts, double peak_gflops, double gbps) {
  std::string line;
  for (const StepPart& part : parts) {
    const double compute_ms = part.flops / (peak_gflops * 1e6), memory_ms = part.bytes / (gbps * 1e6);
    line += fmt::format("{}{} {:.1f} ms = {:.2f}x max(compute {:.1f}, memory {:.1f})", line.empty() ? "" : " | ",
                        part.name, part.ms, part.ms / std::max(compute_ms, memory_ms), compute_ms, memory_ms);
  }
  return line;
}

}  // namespace adjoint::cli
