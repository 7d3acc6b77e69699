// The few-row products (few_rows.hpp) on AVX-512: 16 floats a vector; for a · Wᵀ 4 rows × 6
// columns of lane sums (24 of the 32 registers, with 6 of W and 1 of a) up to 32 rows, beyond
// that up to 4 vectors of a's rows (64) × 6 columns (24, with 4 of a and 1 broadcast); for a · W
// 6 rows × 4 vectors (24, with 4 of W and 1 broadcast). Compiled with AVX-512 flags whatever the build machine
// (cmake/AdjointKernelFlags.cmake); gemm.cpp calls it only when cpuid reports AVX-512.
#include <immintrin.h>

#include "few_rows.hpp"

namespace adjoint::kernels::avx512 {

struct Simd {
  using V = __m512;
  static constexpr int kWidth = 16, kLaneRows = 4, kLaneColumns = 6, kDotRowVectors = 4, kDotAccumulators = 24,
                       kOuterRows = 6, kOuterVectors = 4;
  static __mmask16 first(int count) { return __mmask16((1u << count) - 1); }
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static V load_first(const float* p, int count) { return _mm512_maskz_loadu_ps(first(count), p); }
  // bf16 is the upper half of an fp32 value: widened to 32 bits and shifted up, exactly (the
  // zero-masked forms: GCC 12 warns of the undefined vector the unmasked ones pass).
  static V widen(__m256i bf16) {
    const __mmask16 all = 0xffff;
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, _mm512_maskz_cvtepu16_epi32(all, bf16), 16));
  }
  static V load(const unsigned short* p) { return widen(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static V load_first(const unsigned short* p, int count) { return widen(_mm256_maskz_loadu_epi16(first(count), p)); }
  static void store_first(float* p, V v, int count) { _mm512_mask_storeu_ps(p, first(count), v); }
  static V broadcast(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // Halves added down to one lane (GCC 12's _mm512_reduce_add_ps and cast to 256 bits warn of an
  // uninitialized value).
  static float sum(V v) {
    const __m256 half = _mm256_add_ps(_mm512_extractf32x8_ps(v, 0), _mm512_extractf32x8_ps(v, 1));
    const __m128 quarter = _mm_add_ps(_mm256_castps256_ps128(half), _mm256_extractf128_ps(half, 1));
    const __m128 pairs = _mm_add_ps(quarter, _mm_movehl_ps(quarter, quarter));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
  // rows[x] = column x of the 16 × 16 block rows held (four rounds of shuffles: pairs of rows,
  // quads, then 128-bit lanes twice).
  static void transpose(V* rows) {
    V pairs[16], quads[16];
    for (int i = 0; i < 16; i += 2) {
      pairs[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
      pairs[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
    }
    for (int g = 0; g < 16; g += 4) {  // quads[g + x]: rows g..g+3 at columns x, x+4, x+8, x+12
      quads[g] = _mm512_shuffle_ps(pairs[g], pairs[g + 2], 0x44);
      quads[g + 1] = _mm512_shuffle_ps(pairs[g], pairs[g + 2], 0xee);
      quads[g + 2] = _mm512_shuffle_ps(pairs[g + 1], pairs[g + 3], 0x44);
      quads[g + 3] = _mm512_shuffle_ps(pairs[g + 1], pairs[g + 3], 0xee);
    }
    for (int x = 0; x < 4; x++) {
      const V low_even = _mm512_shuffle_f32x4(quads[x], quads[4 + x], 0x88);  // rows 0-7, columns x, x+8
      const V low_odd = _mm512_shuffle_f32x4(quads[x], quads[4 + x], 0xdd);   // columns x+4, x+12
      const V high_even = _mm512_shuffle_f32x4(quads[8 + x], quads[12 + x], 0x88);
      const V high_odd = _mm512_shuffle_f32x4(quads[8 + x], quads[12 + x], 0xdd);
      rows[x] = _mm512_shuffle_f32x4(low_even, high_even, 0x88);
      rows[x + 8] = _mm512_shuffle_f32x4(low_even, high_even, 0xdd);
      rows[x + 4] = _mm512_shuffle_f32x4(low_odd, high_odd, 0x88);
      rows[x + 12] = _mm512_shuffle_f32x4(low_odd, high_odd, 0xdd);
    }
  }
};

#include "few_rows_kernel.inc"

}  // namespace adjoint::kernels::avx512
