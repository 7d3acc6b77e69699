// Token + position embedding (Llama: token embedding only, wpe null).
#include <algorithm>
#include <type_traits>

#include "adjoint/bf16.hpp"
#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {

template <typename F>
void encoder_forward(F* out, const int* inp, const F* wte, const F* wpe, int B, int T, int C) {
  // A frozen bf16 embedding (adjoint/bf16.hpp) reads its rows from their bf16 stand-in.
  const std::uint16_t* wte_bf16 = nullptr;
  if constexpr (std::is_same_v<F, float>) wte_bf16 = registered_bf16(wte);
#pragma omp parallel for collapse(2)
  for (int b = 0; b < B; b++) {
    for (int t = 0; t < T; t++) {
      F* out_bt = out + ((std::size_t)b * T + t) * C;
      const std::size_t row = (std::size_t)inp[b * T + t] * C;
      if constexpr (std::is_same_v<F, float>) {
        if (wte_bf16) bf16_to_float(wte_bf16 + row, C, out_bt);
      }
      if (!wte_bf16)
        for (int c = 0; c < C; c++) out_bt[c] = wte[row + c];
      if (!wpe) continue;
      const F* wpe_row = wpe + (std::size_t)t * C;
      for (int c = 0; c < C; c++) out_bt[c] += wpe_row[c];
    }
  }
}

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
