// The Tensor ops at the end of a model, each beside its pullback: softmax, and cross-entropy (the
// arrays engine's fused softmax + cross-entropy kernel; its pullback computes the probabilities
// again, into the logits' own storage when nothing else reads them).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <omp.h>
#include <string>

#include "adjoint/kernels.hpp"
#include "adjoint/tensor.hpp"
#include "op_support.hpp"

namespace adjoint {

using namespace tensor_detail;

namespace {

// cross_entropy's name as it notes its reads, which its pullback looks for (Arena::claim_for_gradient).
constexpr char kCrossEntropy[] = "cross_entropy";

// Checks the arguments; returns the rows N and the padded width Vp.
void crossentropy_shape(const Tensor& logits, const int* targets, int V, int* N, int* Vp) {
  rows_and_channels(logits, "cross_entropy", N, Vp);
  require(V > 0 && V <= *Vp, "cross_entropy",
          [&] { return std::string("V " + std::to_string(V) + " outside (0, " + std::to_string(*Vp) + "]"); });
  for (int i = 0; i < *N; i++)
    require((targets[i] >= 0 && targets[i] < V) || targets[i] == kernels::no_target, "cross_entropy", [&] {
      return std::string("target " + std::to_string(targets[i]) + " outside [0, " + std::to_string(V) +
                         ") and not no_target");
    });
}

}  // namespace

// ---- softmax

Tensor softmax(const Tensor& x_in) {
  int N, C;
  rows_and_channels(x_in, "softmax", &N, &C);
  read_by("softmax", x_in);
  Tensor out = empty_like(x_in);
  Temporaries scratch;
  const Tensor x = x_in.contiguous();
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const float* z = x.data + std::size_t(i) * C;
    float* p = out.data + std::size_t(i) * C;
    float maxval = -INFINITY;
    for (int c = 0; c < C; c++) maxval = std::fmax(maxval, z[c]);
    float total = 0;
    for (int c = 0; c < C; c++) {
      p[c] = std::exp(z[c] - maxval);
      total += p[c];
    }
    for (int c = 0; c < C; c++) p[c] /= total;
  }
  return out;
}

namespace custom_derivatives {

void softmax_pullback(const Tensor& x, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  int N, C;
  rows_and_channels(x, "softmax", &N, &C);
  overwriting_pullback(d_x, x, [&](float* dx) {
    const Tensor y = softmax(x), g = d_result.contiguous();
    float* out = dx ? dx : y.data;  // in place: each row's probabilities are read before overwritten
                                    // dx = y ⊙ (g - Σ g·y), row by row.
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
      const float* p = y.data + std::size_t(i) * C;
      const float* gi = g.data + std::size_t(i) * C;
      float* o = out + std::size_t(i) * C;
      float dot = 0;
      for (int c = 0; c < C; c++) dot += gi[c] * p[c];
      for (int c = 0; c < C; c++) o[c] = p[c] * (gi[c] - dot);
    }
    return out;
  });
}

}  // namespace custom_derivatives

// ---- cross-entropy

float cross_entropy(const Tensor& logits_in, const int* targets, int V) {
  int N, Vp;
  crossentropy_shape(logits_in, targets, V, &N, &Vp);
  read_by(kCrossEntropy, logits_in);
  Temporaries scratch;
  const Tensor logits = logits_in.contiguous();
  float* losses = current_arena().allocate(std::size_t(N));
  // The loss needs no probabilities, but the kernel writes them: a few rows at a time into one
  // buffer, not an (N, Vp) array beside the logits (the pullback computes them again).
  const int rows = std::min(N, 8 * omp_get_max_threads());
  float* probs = current_arena().allocate(std::size_t(rows) * Vp);
  for (int i = 0; i < N; i += rows)
    kernels::softmax_crossentropy_forward(losses + i, probs, logits.data + std::size_t(i) * Vp, targets + i,
                                          std::min(rows, N - i), V, Vp);
  return kernels::mean_loss(losses, targets, N);  // as the arrays engine reduces it
}

namespace custom_derivatives {

void cross_entropy_pullback(const Tensor& logits_in, const int* targets, int V, float d_result, Tensor* d_logits) {
  if (!d_logits) return;
  int N, Vp;
  crossentropy_shape(logits_in, targets, V, &N, &Vp);
  // The gradient into probs, which may be the logits' own storage: the kernels read each logit and
  // probability before overwriting it.
  const auto gradient = [&](float* probs, const float* logits) {
    float* losses = current_arena().allocate(std::size_t(N));
    kernels::softmax_crossentropy_forward(losses, probs, logits, targets, N, V, Vp);
    // The mean's adjoint per row (the kernel gives rows without a target none).
    const int counted = kernels::counted_targets(targets, N);
    for (int i = 0; i < N; i++) losses[i] = counted > 0 ? d_result / float(counted) : 0.0f;
    kernels::softmax_crossentropy_backward(probs, probs, targets, losses, N, V, Vp);
  };
  // Logits no other op read, inside a sweep's private intermediates: their storage becomes their
  // gradient, as the arrays engine writes the logits' gradient over its probabilities.
  if (d_logits->empty() && logits_in.is_contiguous() && current_arena().claim_for_gradient(logits_in, kCrossEntropy)) {
    Temporaries scratch;
    gradient(logits_in.data, logits_in.data);
    *d_logits = logits_in;
    return;
  }
  overwriting_pullback(d_logits, logits_in, [&](float* dlogits) {
    const Tensor logits = logits_in.contiguous();
    // The probabilities go where the gradient goes, so the pullback holds one (N, Vp) array
    // besides the logits, not two.
    float* probs = dlogits ? dlogits : current_arena().allocate(std::size_t(N) * Vp);
    gradient(probs, logits.data);
    return probs;
  });
}

}  // namespace custom_derivatives

}  // namespace adjoint
