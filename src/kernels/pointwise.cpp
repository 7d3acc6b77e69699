// Element-wise kernels: GELU and the residual add.
#include <cmath>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {
namespace {
constexpr double kGeluScale = 0.7978845608028654;  // sqrt(2/pi)
constexpr double kGeluCube = 0.044715;
}  // namespace

template <typename F>
void gelu_forward(F* out, const F* inp, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    const F x = inp[i];
    out[i] = F(0.5) * x * (1 + std::tanh(F(kGeluScale) * (x + F(kGeluCube) * x * x * x)));
  }
}

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
void residual_forward(F* out, const F* inp1, const F* inp2, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) out[i] = inp1[i] + inp2[i];
}

template <typename F>
void residual_backward(F* dinp1, F* dinp2, const F* dout, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    dinp1[i] += dout[i];
    dinp2[i] += dout[i];
  }
}

template void gelu_forward<float>(float*, const float*, std::size_t);
template void gelu_forward<double>(double*, const double*, std::size_t);
template void gelu_backward<float>(float*, const float*, const float*, std::size_t);
template void gelu_backward<double>(double*, const double*, const double*, std::size_t);
template void residual_forward<float>(float*, const float*, const float*, std::size_t);
template void residual_forward<double>(double*, const double*, const double*, std::size_t);
template void residual_backward<float>(float*, float*, const float*, std::size_t);
template void residual_backward<double>(double*, double*, const double*, std::size_t);

}  // namespace adjoint::kernels
