// Layer normalisation over the channels of each row.
#include <cmath>

#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {

template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight, const F* mean,
                        const F* rstd, int N, int C) {
#pragma omp parallel
  {
    // Input gradient: rows are independent.
#pragma omp for
    for (int i = 0; i < N; i++) {
      const F* x = inp + (std::size_t)i * C;
      const F* dy = dout + (std::size_t)i * C;
      const F m = mean[i], s = rstd[i];
      F dnorm_mean = 0, dnorm_norm_mean = 0;
      for (int c = 0; c < C; c++) {
        const F dnorm = weight[c] * dy[c];
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * (x[c] - m) * s;
      }
      dnorm_mean /= C;
      dnorm_norm_mean /= C;
      F* dx = dinp + (std::size_t)i * C;
      for (int c = 0; c < C; c++) {
        const F norm = (x[c] - m) * s;
        dx[c] += (weight[c] * dy[c] - dnorm_mean - norm * dnorm_norm_mean) * s;
      }
    }
    // Parameter gradients sum over rows: each thread owns a slice of channels.
    const auto [c0, c1] = thread_range(C);
    for (int i = 0; i < N && dweight; i++) {
      const F* x = inp + (std::size_t)i * C;
      const F* dy = dout + (std::size_t)i * C;
      const F m = mean[i], s = rstd[i];
      for (int c = c0; c < c1; c++) {
        dweight[c] += (x[c] - m) * s * dy[c];
        dbias[c] += dy[c];
      }
    }
  }
}

template void layernorm_forward<float>(float*, float*, float*, const float*, const float*, const float*, int, int);
template void layernorm_forward<double>(double*, double*, double*, const double*, const double*, const double*, int,
                                        int);
template void layernorm_backward<float>(float*, float*, float*, const float*, const float*, const float*, const float*,
                                        const float*, int, int);
template void layernorm_backward<double>(double*, double*, double*, const double*, const double*, const double*,
                                         const double*, const double*, int, int);

}  // namespace adjoint::kernels
