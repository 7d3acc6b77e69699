// The backward of SwiGLU's gate (its forward is in adjoint/kernels.hpp, where adjc can differentiate it).
#include <cmath>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {

// d silu(a)/da = σ(a)·(1 + a·(1 - σ(a))).
template <typename F>
void swiglu_backward(F* dgate, F* dup, const F* dout, const F* gate, const F* up, std::size_t N) {
#pragma omp parallel for simd
  for (std::size_t i = 0; i < N; i++) {
    const F a = gate[i];
    const F sigmoid = 1 / (1 + std::exp(-a));
    dgate[i] += dout[i] * up[i] * sigmoid * (1 + a * (1 - sigmoid));
    dup[i] += dout[i] * a * sigmoid;
  }
}

template void swiglu_backward<float>(float*, float*, const float*, const float*, const float*, std::size_t);
template void swiglu_backward<double>(double*, double*, const double*, const double*, const double*, std::size_t);

}  // namespace adjoint::kernels
