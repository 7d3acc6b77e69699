// AdamW (as torch.optim.AdamW), the learning-rate schedule and global-norm clipping.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "adjoint/gpt2.hpp"
#include "adjoint/model.hpp"

namespace adjoint {

struct AdamWConfig {
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;  // applied to the 2-D weights only (ParameterTensor::decayed)
};

class AdamW {
 public:
  AdamW(const Model& model, const AdamWConfig& config);

  // One update at learning rate lr with gradients multiplied by grad_scale (the clipping
  // factor), in a single pass over memory that also zeroes the gradients for the next step.
  // step counts from 1 (bias correction).
  void update(Model& model, float lr, float grad_scale, int step);

  float* m() const { return m_.data(); }
  float* v() const { return v_.data(); }
  std::size_t size() const { return m_.size(); }

 private:
  AdamWConfig config_;
  FloatArena m_, v_;
};

// AdamW on the parameters [begin, begin + count) of the model's flat arena, in one pass over
// memory: reads the gradients, moments and parameters, writes the moments and parameters, and
// zeroes the gradients for the next step (36 bytes an element with the norm's read, against the 28
// that reading g, m, v, p and writing m, v, p cannot avoid; docs/performance.md). params, grads, m
// and v point at the values of parameter `begin` (a ZeRO-1 shard updates its pieces this way);
// tensors (the model's parameter_tensors(), laid out from 0) give each element its weight decay.
// grad_scale multiplies the gradients (clipping); step counts from 1 (bias correction). The result
// of an element does not depend on the range or the thread count.
void adamw_update(const AdamWConfig& config, const std::vector<ParameterTensor>& tensors, std::size_t begin,
                  std::size_t count, float* params, float* grads, float* m, float* v, float lr, float grad_scale,
                  int step);

// A stretch of floats (gradients) that a sum of squares reads.
struct FloatRange {
  const float* data;
  std::size_t size;
};

// Σ x² over the ranges taken as one array, accumulated in double, in one parallel region: each
// thread sums a fixed contiguous slice of their concatenation and the slices are added in thread
// order, so the result is deterministic for a thread count (and one range gives the bits of
// gradient_global_norm's square).
double sum_of_squares(std::span<const FloatRange> ranges);
// sqrt(Σ g²) over all gradients, accumulated in double; deterministic for a thread count.
double gradient_global_norm(const float* grads, std::size_t n);
// The index of the first value that is NaN or infinite, or n when all are finite.
std::size_t first_nonfinite(const float* values, std::size_t n);
// The index of the first value that is NaN, infinite or below 0 (-0 is not), or n when there is none.
std::size_t first_nonfinite_or_negative(const float* values, std::size_t n);
// The factor that brings a global norm down to max_norm (1 when below, or when max_norm <= 0),
// as torch.nn.utils.clip_grad_norm_ computes it.
float clip_scale(double norm, float max_norm);

// Linear warmup over warmup_steps to max_lr, then cosine decay to max_lr * min_fraction at
// total_steps. step counts from 0.
float learning_rate(int step, int total_steps, int warmup_steps, float max_lr, float min_fraction);

}  // namespace adjoint
