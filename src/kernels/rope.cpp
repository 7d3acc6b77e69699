// Rotary position embedding (RoPE) with Meta's pairing: channels (2i, 2i+1) of a head are one
// complex number, rotated by the angle t·freq_i of its position t.
#include <cmath>

#include "adjoint/kernels.hpp"

namespace adjoint::kernels {

template <typename F>
void rope_forward(F* out, const F* inp, const F* cos, const F* sin, int B, int T, int rotated_heads, int heads,
                  int hs) {
  const std::size_t row = (std::size_t)heads * hs;
  const int half = hs / 2;
#pragma omp parallel for collapse(2)
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      const F* x = inp + ((std::size_t)b * T + t) * row;
      F* y = out + ((std::size_t)b * T + t) * row;
      const F* c = cos + (std::size_t)t * half;
      const F* s = sin + (std::size_t)t * half;
      for (int h = 0; h < rotated_heads; h++)
        for (int i = 0; i < half; i++) {
          const std::size_t j = (std::size_t)h * hs + 2 * i;
          y[j] = x[j] * c[i] - x[j + 1] * s[i];
          y[j + 1] = x[j] * s[i] + x[j + 1] * c[i];
        }
      for (std::size_t j = (std::size_t)rotated_heads * hs; j < row; j++) y[j] = x[j];
    }
}

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

template void rope_forward<float>(float*, const float*, const float*, const float*, int, int, int, int, int);
template void rope_forward<double>(double*, const double*, const double*, const double*, int, int, int, int, int);
template void rope_backward<float>(float*, const float*, const float*, const float*, int, int, int, int, int);
template void rope_backward<double>(double*, const double*, const double*, const double*, int, int, int, int, int);

}  // namespace adjoint::kernels
