// The few-row product (few_rows.hpp) on AVX2+FMA: 8 floats a vector, 4 rows × 3 columns of
// accumulators (12 of the 16 registers; the 3 of b and 1 of a take the rest). Compiled with
// AVX2+FMA and without AVX-512 whatever the build machine (src/CMakeLists.txt), so that this is
// the code an AVX2-only CPU runs, and the tests can run it on an AVX-512 one.
#include <immintrin.h>

#include "few_rows.hpp"

namespace adjoint::kernels::avx2 {

struct Simd {
  using V = __m256;
  static constexpr int kWidth = 8, kRows = 4, kColumns = 3;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V load_first(const float* p, int count) {
    static const int kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_maskload_ps(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - count)));
  }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static float sum(V v) {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
};

#include "few_rows_kernel.inc"

}  // namespace adjoint::kernels::avx2
