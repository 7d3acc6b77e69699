// The backward of the rotary position embedding (its forward is in adjoint/kernels.hpp, where adjc
// can differentiate it).
#include <cmath>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {

// The rotation is orthogonal: its backward rotates the output gradient back by -t·freq_i.
template <typename F>
void rope_backward(F* dinp, const F* dout, const F* cos, const F* sin, int B, int T, int rotated_heads, int heads,
                   int hs) {
  const std::size_t row = (std::size_t)heads * hs;
  const int half = hs / 2;
#pragma omp parallel for collapse(2)
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      const F* dy = dout + ((std::size_t)b * T + t) * row;
      F* dx = dinp + ((std::size_t)b * T + t) * row;
      const F* c = cos + (std::size_t)t * half;
      const F* s = sin + (std::size_t)t * half;
      for (int h = 0; h < rotated_heads; h++)
        for (int i = 0; i < half; i++) {
          const std::size_t j = (std::size_t)h * hs + 2 * i;
          dx[j] += dy[j] * c[i] + dy[j + 1] * s[i];
          dx[j + 1] += -dy[j] * s[i] + dy[j + 1] * c[i];
        }
      for (std::size_t j = (std::size_t)rotated_heads * hs; j < row; j++) dx[j] += dy[j];
    }
}

template void rope_backward<float>(float*, const float*, const float*, const float*, int, int, int, int, int);
template void rope_backward<double>(double*, const double*, const double*, const double*, int, int, int, int, int);

}  // namespace adjoint::kernels
