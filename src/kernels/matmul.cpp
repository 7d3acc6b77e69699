// Fully connected layer on BLAS.
#include <cblas.h>

#include "adjoint/kernels.hpp"
#include "parallel.hpp"

namespace adjoint::kernels {
namespace {

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float beta, const float* a,
          int lda, const float* b, int ldb, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double beta,
          const double* a, int lda, const double* b, int ldb, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

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
  gemm(CblasNoTrans, CblasTrans, N, OC, C, beta, inp, C, weight, C, out, OC);
}

template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp,
                     const F* weight, int N, int C, int OC) {
  // dinp (N,C) += dout (N,OC) · weight (OC,C)
  gemm(CblasNoTrans, CblasNoTrans, N, C, OC, F(1), dout, OC, weight, C, dinp, C);
  // dweight (OC,C) += doutᵀ (OC,N) · inp (N,C)
  gemm(CblasTrans, CblasNoTrans, OC, C, N, F(1), dout, OC, inp, C, dweight, C);
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
