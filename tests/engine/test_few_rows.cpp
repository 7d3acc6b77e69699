// Our few-row kernel (src/kernels/few_rows.hpp), inp · Wᵀ and dinp · W, W in fp32 and in bf16, on
// each instruction set this CPU has (the AVX2 body too on an AVX-512 CPU: it is the code an
// AVX2-only CPU runs).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/gemm.hpp"

namespace adjoint {
namespace {

std::vector<GemmLibrary> our_kernels() {
  std::vector<GemmLibrary> kernels;
  if (cpu_features().isa >= Isa::avx2) kernels.push_back(GemmLibrary::few_rows_avx2);
  if (cpu_features().isa >= Isa::avx512) kernels.push_back(GemmLibrary::few_rows_avx512);
  return kernels;
}

std::string kernel_name(GemmLibrary kernel) { return kernel == GemmLibrary::few_rows_avx512 ? "AVX-512" : "AVX2"; }

// A product's operands with ld* wider than the matrices: a (m,k); W (n,k) when trans_b, else (k,n).
struct Operands {
  int m, n, k;
  bool trans_b;
  int lda, ldb, ldc;
  std::vector<float> a, b;
  Operands(int m_, int n_, int k_, bool trans_b_)
      : m(m_), n(n_), k(k_), trans_b(trans_b_), lda(k_ + 3), ldb((trans_b_ ? k_ : n_) + 5), ldc(n_ + 2) {
    a.resize(std::size_t(m) * lda);
    b.resize(std::size_t(trans_b ? n : k) * ldb);
    for (std::size_t i = 0; i < a.size(); i++) a[i] = std::sin(0.37f * float(i));
    for (std::size_t i = 0; i < b.size(); i++) b[i] = std::cos(0.11f * float(i));
  }
  float w(int j, int p) const { return trans_b ? b[std::size_t(j) * ldb + p] : b[std::size_t(p) * ldb + j]; }
  void run(GemmLibrary kernel, float alpha, float beta, std::vector<float>& c) const {
    gemm_with(kernel, false, trans_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }
};

// Against a double reference, at row counts, depths and column counts that hit every edge of the
// register blocks, the vector tails and the slices of the sum over k (inp · Wᵀ: both of its forms,
// lane sums up to 32 rows and broadcasts beyond, the latter's groups of 32 (AVX2) or 64 rows
// with 1-4 vectors of rows in the last, its slices at k > 2048 for 64 rows and k > 896 for 130;
// dinp · W: k > 128), dinp · W's groups of 128 rows (m = 130) and chunks of 1024 columns
// (n = 1100), with k = 1 and n below one panel, and beta 0 (c not read: NaN there must not leak),
// 1 and 0.25. Each float sum of k products is within 2·k·ε·(Σ|a||w| + |beta·c|)
// of the exact one.
void expect_matches_reference(GemmLibrary kernel, bool trans_b, int m, int n, int k, float beta) {
  const Operands x(m, n, k, trans_b);
  std::vector<float> c(std::size_t(m) * x.ldc, 0.5f);
  if (beta == 0.0f) std::fill(c.begin(), c.end(), std::nanf(""));
  x.run(kernel, 0.5f, beta, c);
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      double sum = 0, magnitude = std::abs(0.5 * beta);
      for (int p = 0; p < k; p++) {
        const double product = double(x.a[std::size_t(i) * x.lda + p]) * double(x.w(j, p));
        sum += product;
        magnitude += std::abs(product);
      }
      const double expected = 0.5 * sum + (beta == 0.0f ? 0.0 : 0.5 * double(beta));
      ASSERT_NEAR(c[std::size_t(i) * x.ldc + j], expected, 2.0 * (k + 2) * 1.2e-7 * magnitude)
          << kernel_name(kernel) << " trans_b=" << trans_b << " m=" << m << " n=" << n << " k=" << k << " beta=" << beta
          << " at (" << i << "," << j << ")";
    }
    const float past = c[std::size_t(i) * x.ldc + n];
    ASSERT_TRUE(beta == 0.0f ? std::isnan(past) : past == 0.5f) << kernel_name(kernel) << " wrote past n";
  }
}

TEST(FewRows, MatchesADoubleReference) {
  if (our_kernels().empty()) GTEST_SKIP() << "SKIPPED LOUDLY: " << describe(cpu_features()) << " has no AVX2";
  for (const GemmLibrary kernel : our_kernels()) {
    for (const bool trans_b : {true, false}) {
      for (const int m : {1, 5, 6, 7, 32, 33, 64, 65, 80, 97, 113, 130}) {
        for (const int n : {1, 5, 13, 40, 70}) {
          for (const int k : {1, 7, 16, 33, 300}) {
            for (const float beta : {0.0f, 1.0f, 0.25f}) expect_matches_reference(kernel, trans_b, m, n, k, beta);
          }
        }
        expect_matches_reference(kernel, trans_b, m, 29, 1100, 0.25f);  // slices of the sum
        expect_matches_reference(kernel, trans_b, m, 29, 2050, 0.0f);
        expect_matches_reference(kernel, trans_b, m, 1100, 150, 1.0f);  // dinp · W's chunks of 1024 columns
      }
      expect_matches_reference(kernel, trans_b, 1030, 13, 40, 0.25f);  // inp · Wᵀ's groups of 1024 rows
    }
  }
}

// bf16 -> fp32 is exact, so W read as bf16 gives the bits W converted to fp32 gives.
TEST(FewRows, Bf16WeightGivesTheBitsOfItsFp32Conversion) {
  if (our_kernels().empty()) GTEST_SKIP() << "SKIPPED LOUDLY: " << describe(cpu_features()) << " has no AVX2";
  for (const GemmLibrary kernel : our_kernels()) {
    for (const bool trans_b : {true, false}) {
      for (const auto [m, n, k] : {std::array{3, 13, 7}, std::array{64, 70, 1100}, std::array{33, 200, 300},
                                   std::array{128, 40, 2050}, std::array{7, 1, 1}}) {
        Operands x(m, n, k, trans_b);
        std::vector<std::uint16_t> b16(x.b.size());
        for (std::size_t i = 0; i < x.b.size(); i++) {  // b rounded down to bf16, and its bf16 upper half
          std::uint32_t bits;
          std::memcpy(&bits, &x.b[i], sizeof(bits));
          bits &= 0xffff0000u;
          std::memcpy(&x.b[i], &bits, sizeof(bits));
          b16[i] = std::uint16_t(bits >> 16);
        }
        for (const float beta : {0.0f, 0.25f}) {
          std::vector<float> fp32(std::size_t(m) * x.ldc, 0.5f), bf16 = fp32;
          x.run(kernel, 0.5f, beta, fp32);
          gemm_with_bf16(kernel, false, trans_b, m, n, k, 0.5f, x.a.data(), x.lda, b16.data(), x.ldb, beta, bf16.data(),
                         x.ldc);
          ASSERT_EQ(std::memcmp(fp32.data(), bf16.data(), fp32.size() * sizeof(float)), 0)
              << kernel_name(kernel) << " trans_b=" << trans_b << " m=" << m << " n=" << n << " k=" << k;
        }
      }
    }
  }
}

// Each element is one sum in a fixed order, so the product has the same bits on one thread and on
// two or three (the split over n moves no sum), and every run.
TEST(FewRows, SameBitsForAnyThreadCount) {
  if (our_kernels().empty()) GTEST_SKIP() << "SKIPPED LOUDLY: " << describe(cpu_features()) << " has no AVX2";
  const int threads = omp_get_max_threads();
  for (const GemmLibrary kernel : our_kernels()) {
    for (const bool trans_b : {true, false}) {
      for (const int m : {16, 64}) {
        const Operands x(m, 2304 + 7, 1100 + 3, trans_b);
        std::vector<std::vector<float>> results;
        for (const int t : {1, 2, 3, 2}) {
          omp_set_num_threads(t);
          results.emplace_back(std::size_t(m) * x.ldc, 0.5f);
          x.run(kernel, 1.0f, 1.0f, results.back());
        }
        for (std::size_t r = 1; r < results.size(); r++)
          EXPECT_EQ(results[r], results[0]) << kernel_name(kernel) << " trans_b=" << trans_b << " run " << r;
      }
    }
  }
  omp_set_num_threads(threads);
}

// The routing: ours where it measured fastest (docs/performance.md, "Few-row products"), never
// for a transposed a, which it refuses, nor for a product smaller than a weight; a clear error
// where the CPU lacks the instructions or another library is asked to read bf16.
TEST(FewRows, Routing) {
  const Isa isa = cpu_features().isa;
  if (isa < Isa::avx2) GTEST_SKIP() << "SKIPPED LOUDLY: no AVX2 on " << describe(cpu_features());
  if (!gemm_info().few_rows) GTEST_SKIP() << "ADJOINT_GEMM=openblas; ctest runs this with it unset";
  const GemmLibrary ours = isa >= Isa::avx512 ? GemmLibrary::few_rows_avx512 : GemmLibrary::few_rows_avx2;
  EXPECT_EQ(gemm_library(false, true, 16, 3072, 768), ours);
  EXPECT_EQ(gemm_library(false, true, kFewRowsMaxRows, 50304, 768), ours);
  EXPECT_NE(gemm_library(false, true, kFewRowsMaxRows + 1, 50304, 768), ours);
  // A narrow product too, on any thread count.
  const int threads = omp_get_max_threads();
  for (int t : {1, 2}) {
    omp_set_num_threads(t);
    EXPECT_EQ(gemm_library(false, true, kFewRowsMaxRows, 768, 3072), ours) << t << " threads";
  }
  omp_set_num_threads(threads);
  // dinp = dout W: ours only where oneDNN, faster there, is not loaded.
  const bool onednn = !gemm_info().onednn.empty();
  EXPECT_EQ(gemm_library(false, false, kRowsTimesWeightMaxRows, 2048, 8192) == ours, !onednn);
  EXPECT_NE(gemm_library(false, false, kRowsTimesWeightMaxRows + 1, 2048, 8192), ours);
  EXPECT_NE(gemm_library(false, true, 16, 64, 64), ours);  // not weight-sized
  EXPECT_NE(gemm_library(true, false, 3072, 768, 16), ours);
  EXPECT_EQ(bf16_weight_library(false, true, kBf16DirectMaxRows, 2048, 2048), ours);
  EXPECT_EQ(bf16_weight_library(false, false, kBf16DirectMaxRows, 2048, 2048), ours);
  EXPECT_EQ(bf16_weight_library(false, false, kBf16DirectMaxRows + 1, 2048, 2048), GemmLibrary::openblas);
  EXPECT_EQ(bf16_weight_library(true, false, 64, 2048, 2048), GemmLibrary::openblas);
  EXPECT_NE(gemm_info().line(2).find("ours ("), std::string::npos) << gemm_info().line(2);
  float a = 1, b = 1, c = 0;
  const std::uint16_t b16 = 0x3f80;
  EXPECT_THROW(gemm_with(ours, true, true, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1), std::invalid_argument);
  EXPECT_THROW(gemm_with(ours, true, false, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1), std::invalid_argument);
  EXPECT_THROW(gemm_with_bf16(GemmLibrary::openblas, false, true, 1, 1, 1, 1.0f, &a, 1, &b16, 1, 0.0f, &c, 1),
               std::invalid_argument);
  gemm_with_bf16(ours, false, true, 1, 1, 1, 2.0f, &a, 1, &b16, 1, 0.0f, &c, 1);
  EXPECT_EQ(c, 2.0f);
  if (isa < Isa::avx512) {
    EXPECT_THROW(gemm_with(GemmLibrary::few_rows_avx512, false, true, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1),
                 std::runtime_error);
  }
}

}  // namespace
}  // namespace adjoint
