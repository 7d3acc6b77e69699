// The backward of root-mean-square normalisation (its forward is in adjoint/kernels.hpp, where adjc can
// differentiate it).
#include <cmath>

#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {

template <typename F>
void rmsnorm_backward(F* dinp, F* dweight, const F* dout, const F* inp, const F* weight, const F* rstd, int N,
                      int C) {
#pragma omp parallel
  {
    // Input gradient: rows are independent. y = x·s·w with s = (Σx²/C + eps)^-1/2, so
    // dx = s·w·dy - x·s³/C · Σ(w·dy·x).
#pragma omp for
    for (int i = 0; i < N; i++) {
      const F* x = inp + (std::size_t)i * C;
      const F* dy = dout + (std::size_t)i * C;
      const F s = rstd[i];
      F dot = 0;
      for (int c = 0; c < C; c++) dot += weight[c] * dy[c] * x[c];
      const F k = dot * s * s * s / C;
      F* dx = dinp + (std::size_t)i * C;
      for (int c = 0; c < C; c++) dx[c] += s * weight[c] * dy[c] - x[c] * k;
    }
    // The weight's gradient sums over rows: each thread owns a slice of channels.
    const auto [c0, c1] = thread_range(C);
    for (int i = 0; i < N && dweight; i++) {
      const F* x = inp + (std::size_t)i * C;
      const F* dy = dout + (std::size_t)i * C;
      const F s = rstd[i];
      for (int c = c0; c < c1; c++) dweight[c] += x[c] * s * dy[c];
    }
  }
}

template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*, const float*, int,
                                      int);
template void rmsnorm_backward<double>(double*, double*, const double*, const double*, const double*,
                                       const double*, int, int);

}  // namespace adjoint::kernels
