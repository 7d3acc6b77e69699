// The few-row product (few_rows.hpp) on AVX-512: 16 floats a vector, 4 rows × 4 columns of
// accumulators (16 of the 32 registers). Compiled with AVX-512 flags whatever the build machine
// (src/CMakeLists.txt); gemm.cpp calls it only when cpuid reports AVX-512.
#include <immintrin.h>

#include "few_rows.hpp"

namespace adjoint::kernels::avx512 {

struct Simd {
  using V = __m512;
  static constexpr int kWidth = 16, kRows = 4, kColumns = 4;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static V load_first(const float* p, int count) { return _mm512_maskz_loadu_ps(__mmask16((1u << count) - 1), p); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  // Halves added down to one lane (GCC 12's _mm512_reduce_add_ps and cast to 256 bits warn of an
  // uninitialized value).
  static float sum(V v) {
    const __m256 half = _mm256_add_ps(_mm512_extractf32x8_ps(v, 0), _mm512_extractf32x8_ps(v, 1));
    const __m128 quarter = _mm_add_ps(_mm256_castps256_ps128(half), _mm256_extractf128_ps(half, 1));
    const __m128 pairs = _mm_add_ps(quarter, _mm_movehl_ps(quarter, quarter));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
};

#include "few_rows_kernel.inc"

}  // namespace adjoint::kernels::avx512
