// AdamW, clipping and the learning-rate schedule.
#include "adjoint/optimizer.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace adjoint {

AdamW::AdamW(const Model& model, const AdamWConfig& config)
    : config_(config), m_(model.num_parameters()), v_(model.num_parameters()) {}

void AdamW::update(Model& model, float lr, float grad_scale, int step) {
  adamw_update(config_, model.parameter_tensors(), 0, model.num_parameters(), model.params_memory(),
               model.grads_memory(), m_.data(), v_.data(), lr, grad_scale, step);
}

void adamw_update(const AdamWConfig& config, const std::vector<ParameterTensor>& tensors, std::size_t begin,
                  std::size_t count, float* params, float* grads, float* m, float* v, float lr, float grad_scale,
                  int step) {
  const float b1 = config.beta1, b2 = config.beta2, eps = config.eps;
  // torch.optim.AdamW's arithmetic: p *= 1 - lr*wd; p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps).
  const float step_size = lr / (1.0f - std::pow(b1, float(step)));
  const float inv_sqrt_bias2 = 1.0f / std::sqrt(1.0f - std::pow(b2, float(step)));
  // One parallel region over the whole range, each thread a contiguous slice of it, cut at the
  // tensors' boundaries where the weight decay changes (small tensors cost no fork/join each).
#pragma omp parallel
  {
    const std::size_t threads = omp_get_num_threads(), id = omp_get_thread_num();
    const std::size_t slice_begin = begin + count * id / threads, slice_end = begin + count * (id + 1) / threads;
    std::size_t tensor_begin = 0;
    for (const ParameterTensor& tensor : tensors) {
      const std::size_t tensor_end = tensor_begin + tensor.size;
      const std::size_t from = std::max(tensor_begin, slice_begin), to = std::min(tensor_end, slice_end);
      tensor_begin = tensor_end;
      if (from >= to) continue;
      const float keep = 1.0f - lr * (tensor.decayed ? config.weight_decay : 0.0f);
      // Indexed from `begin`, where the arrays start.
#pragma omp simd
      for (std::size_t i = from - begin; i < to - begin; i++) {
        const float g = grads[i] * grad_scale;
        const float mi = b1 * m[i] + (1.0f - b1) * g;
        const float vi = b2 * v[i] + (1.0f - b2) * g * g;
        m[i] = mi;
        v[i] = vi;
        params[i] = params[i] * keep - step_size * mi / (std::sqrt(vi) * inv_sqrt_bias2 + eps);
        grads[i] = 0.0f;
      }
    }
  }
}

double sum_of_squares(std::span<const FloatRange> ranges) {
  constexpr int kMaxThreads = 256;  // a stack array: no allocation inside a training step
  double partial[kMaxThreads] = {};
  std::size_t total = 0;
  for (const FloatRange& range : ranges) total += range.size;
#pragma omp parallel num_threads(std::min(omp_get_max_threads(), kMaxThreads))
  {
    const std::size_t threads = omp_get_num_threads(), id = omp_get_thread_num();
    const std::size_t begin = total * id / threads, end = total * (id + 1) / threads;
    double sum = 0;
    std::size_t offset = 0;  // where the range starts in the concatenation
    for (const FloatRange& range : ranges) {
      const std::size_t from = std::max(begin, offset), to = std::min(end, offset + range.size);
      if (from < to) {
        const float* x = range.data + (from - offset);
#pragma omp simd reduction(+ : sum)
        for (std::size_t i = 0; i < to - from; i++) sum += double(x[i]) * x[i];
      }
      offset += range.size;
    }
    partial[id] = sum;
  }
  double squares = 0;
  for (double s : partial) squares += s;
  return squares;
}

double gradient_global_norm(const float* grads, std::size_t n) {
  const FloatRange all{grads, n};
  return std::sqrt(sum_of_squares({&all, 1}));
}

namespace {

// The index of the first value for which is_bad holds, or n.
template <class IsBad>
std::size_t first_where(const float* values, std::size_t n, IsBad is_bad) {
  std::size_t first = n;
#pragma omp parallel for reduction(min : first) schedule(static)
  for (std::size_t i = 0; i < n; i++) {
    if (is_bad(values[i]) && i < first) first = i;
  }
  return first;
}

}  // namespace

std::size_t first_nonfinite(const float* values, std::size_t n) {
  return first_where(values, n, [](float x) { return !std::isfinite(x); });
}

std::size_t first_nonfinite_or_negative(const float* values, std::size_t n) {
  return first_where(values, n, [](float x) { return !std::isfinite(x) || x < 0.0f; });
}

float clip_scale(double norm, float max_norm) {
  if (max_norm <= 0.0f || norm <= max_norm) return 1.0f;
  return float(max_norm / (norm + 1e-6));
}

float learning_rate(int step, int total_steps, int warmup_steps, float max_lr, float min_fraction) {
  if (step < warmup_steps) return max_lr * float(step + 1) / float(warmup_steps);
  const float min_lr = max_lr * min_fraction;
  if (total_steps <= warmup_steps) return max_lr;
  const double progress = double(step - warmup_steps) / double(total_steps - warmup_steps);
  const double cosine = 0.5 * (1.0 + std::cos(3.141592653589793 * std::min(progress, 1.0)));
  return float(min_lr + (max_lr - min_lr) * cosine);
}

}  // namespace adjoint
