// Softmax over the vocabulary fused with the cross-entropy loss.
#include <algorithm>
#include <cmath>
#include <limits>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {

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
