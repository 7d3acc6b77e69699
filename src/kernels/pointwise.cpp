// Element-wise kernels: the backward passes of GELU and the residual add (their forward passes
// are in adjoint/kernels.hpp, where adjc can differentiate them).
#include <cmath>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    const F x = inp[i];
    const F th = std::tanh(F(kGeluScale) * (x + F(kGeluCube) * x * x * x));
    const F sech2 = 1 - th * th;
    const F local = F(0.5) * (1 + th) +
                    F(0.5) * x * sech2 * F(kGeluScale) * (1 + 3 * F(kGeluCube) * x * x);
    dinp[i] += local * dout[i];
  }
}

template <typename F>
void residual_backward(F* dinp1, F* dinp2, const F* dout, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    dinp1[i] += dout[i];
    dinp2[i] += dout[i];
  }
}

template void gelu_backward<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward<double>(double*, const double*, const double*, std::size_t);
template void residual_backward<float>(float*, float*, const float*, std::size_t);
template void residual_backward<double>(double*, double*, const double*, std::size_t);

}  // namespace adjoint::kernels
