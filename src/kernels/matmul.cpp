// Fully connected layer on BLAS.
#include "adjoint/gemm.hpp"
#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {

template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int N, int C, int OC) {
  F beta = 0;
  if (bias) {
    // Start from the bias so that sgemm adds the product in the same pass.
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      for (int o = 0; o < OC; o++) out[(std::size_t)i * OC + o] = bias[o];
    beta = 1;
  }
  gemm(false, true, N, OC, C, F(1), inp, C, weight, C, beta, out, OC);
}

template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp,
                     const F* weight, int N, int C, int OC) {
  // dinp (N,C) += dout (N,OC) · weight (OC,C)
  gemm(false, false, N, C, OC, F(1), dout, OC, weight, C, F(1), dinp, C);
  // dweight (OC,C) += doutᵀ (OC,N) · inp (N,C)
  gemm(true, false, OC, C, N, F(1), dout, OC, inp, C, F(1), dweight, C);
  if (dbias) {
#pragma omp parallel
    {
      const auto [o0, o1] = thread_range(OC);
      for (int i = 0; i < N; i++) {
        const F* dout_row = dout + (std::size_t)i * OC;
        for (int o = o0; o < o1; o++) dbias[o] += dout_row[o];
      }
    }
  }
}

template void matmul_forward<float>(float*, const float*, const float*, const float*, int, int, int);
template void matmul_forward<double>(double*, const double*, const double*, const double*, int, int, int);
template void matmul_backward<float>(float*, float*, float*, const float*, const float*,
                                     const float*, int, int, int);
template void matmul_backward<double>(double*, double*, double*, const double*, const double*,
                                      const double*, int, int, int);

}  // namespace adjoint::kernels
