// Token + position embedding (Llama: token embedding only, wpe null).
#include <algorithm>

#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {

// Tokens repeat, so rows of dwte are shared between positions: each thread owns a range of
// channels instead of a range of positions, which needs no atomics and stays deterministic.
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int* inp, int B, int T, int C) {
#pragma omp parallel
  {
    const auto [c0, c1] = thread_range(C);
    for (int b = 0; b < B; b++) {
      for (int t = 0; t < T; t++) {
        const F* dout_bt = dout + ((std::size_t)b * T + t) * C;
        F* dwte_row = dwte + (std::size_t)inp[b * T + t] * C;
        for (int c = c0; c < c1; c++) dwte_row[c] += dout_bt[c];
        if (!dwpe) continue;
        F* dwpe_row = dwpe + (std::size_t)t * C;
        for (int c = c0; c < c1; c++) dwpe_row[c] += dout_bt[c];
      }
    }
  }
}

template void encoder_forward<float>(float*, const int*, const float*, const float*, int, int, int);
template void encoder_forward<double>(double*, const int*, const double*, const double*, int, int, int);
template void encoder_backward<float>(float*, float*, const float*, const int*, int, int, int);
template void encoder_backward<double>(double*, double*, const double*, const int*, int, int, int);

}  // namespace adjoint::kernels
