// The few-row products (few_rows.hpp) on AVX2+FMA: 8 floats a vector; for a · Wᵀ 4 rows × 3
// columns of lane sums (12 of the 16 registers; the 3 of W and 1 of a take the rest) up to 32
// rows, beyond that 4 vectors of a's rows (32) × 3 columns (12, with 4 of a and 1 broadcast); for
// a · W 6 rows × 2 vectors (12, with 2 of W and 1 broadcast). Compiled with AVX2+FMA and without AVX-512
// whatever the build machine (cmake/AdjointKernelFlags.cmake), so that this is the code an
// AVX2-only CPU runs, and the tests can run it on an AVX-512 one.
#include <immintrin.h>

#include "few_rows.hpp"

namespace adjoint::kernels::avx2 {

struct Simd {
  using V = __m256;
  static constexpr int kWidth = 8, kLaneRows = 4, kLaneColumns = 3, kDotRowVectors = 4, kDotAccumulators = 12,
                       kOuterRows = 6, kOuterVectors = 2;
  static __m256i first(int count) {
    static const int kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - count));
  }
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V load_first(const float* p, int count) { return _mm256_maskload_ps(p, first(count)); }
  // bf16 is the upper half of an fp32 value: widened to 32 bits and shifted up, exactly.
  static V widen(__m128i bf16) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bf16), 16)); }
  static V load(const unsigned short* p) { return widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
  static V load_first(const unsigned short* p, int count) {  // no 16-bit masked load before AVX-512
    unsigned short part[8] = {};
    for (int i = 0; i < count; i++) part[i] = p[i];
    return load(part);
  }
  static void store_first(float* p, V v, int count) { _mm256_maskstore_ps(p, first(count), v); }
  static V broadcast(float x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static float sum(V v) {
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
  }
  // rows[x] = column x of the 8 × 8 block rows held (pairs of rows, quads, then 128-bit halves).
  static void transpose(V* rows) {
    V pairs[8], quads[8];
    for (int i = 0; i < 8; i += 2) {
      pairs[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
      pairs[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
    }
    for (int g = 0; g < 8; g += 4) {  // quads[g + x]: rows g..g+3 at columns x, x+4
      quads[g] = _mm256_shuffle_ps(pairs[g], pairs[g + 2], 0x44);
      quads[g + 1] = _mm256_shuffle_ps(pairs[g], pairs[g + 2], 0xee);
      quads[g + 2] = _mm256_shuffle_ps(pairs[g + 1], pairs[g + 3], 0x44);
      quads[g + 3] = _mm256_shuffle_ps(pairs[g + 1], pairs[g + 3], 0xee);
    }
    for (int x = 0; x < 4; x++) {
      rows[x] = _mm256_permute2f128_ps(quads[x], quads[4 + x], 0x20);
      rows[x + 4] = _mm256_permute2f128_ps(quads[x], quads[4 + x], 0x31);
    }
  }
};

#include "few_rows_kernel.inc"

}  // namespace adjoint::kernels::avx2
