// Softmax over the vocabulary fused with the cross-entropy loss.
#include <algorithm>
#include <cmath>
#include <limits>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {

template <typename F>
void softmax_crossentropy_forward(F* losses, F* probs, const F* logits, const int* targets, int N, int V, int Vp) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const F* z = logits + (std::size_t)i * Vp;
    F* p = probs + (std::size_t)i * Vp;
    F maxval = std::numeric_limits<F>::lowest();
    for (int v = 0; v < V; v++) maxval = std::max(maxval, z[v]);
    // Read before the loop below, which may overwrite logits in place.
    const int target = targets[i];
    const F target_logit = target != no_target ? z[target] : F(0);
    F sum = 0;
    for (int v = 0; v < V; v++) {
      p[v] = std::exp(z[v] - maxval);
      sum += p[v];
    }
    const F inv_sum = 1 / sum;
    for (int v = 0; v < V; v++) p[v] *= inv_sum;
    for (int v = V; v < Vp; v++) p[v] = 0;
    // -log p[target] from the logit, accurate even where the probability underflows.
    losses[i] = target != no_target ? std::log(sum) + maxval - target_logit : F(0);
  }
}

template <typename F>
void softmax_crossentropy_backward(F* dlogits, const F* probs, const int* targets, const F* dlosses, int N, int V,
                                   int Vp) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    const F* p = probs + (std::size_t)i * Vp;
    F* dz = dlogits + (std::size_t)i * Vp;
    // A position without a target has the constant loss 0.
    const F dloss = targets[i] != no_target ? dlosses[i] : F(0);
    for (int v = 0; v < V; v++) dz[v] = p[v] * dloss;
    for (int v = V; v < Vp; v++) dz[v] = 0;
    if (targets[i] != no_target) dz[targets[i]] -= dloss;
  }
}

template void softmax_crossentropy_forward<float>(float*, float*, const float*, const int*, int, int, int);
template void softmax_crossentropy_forward<double>(double*, double*, const double*, const int*, int, int, int);
template void softmax_crossentropy_backward<float>(float*, const float*, const int*, const float*, int, int, int);
template void softmax_crossentropy_backward<double>(double*, const double*, const int*, const double*, int, int, int);

}  // namespace adjoint::kernels
