// The GEMM runs the kernel for this CPU's ISA unless the user chose another, says so, and computes
// what CBLAS would. ctest runs the kernel checks twice: with OPENBLAS_CORETYPE empty (the default
// every user gets) and with it set to the oldest kernel (the user's choice wins, with a warning).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/gemm.hpp"

namespace adjoint {
namespace {

bool user_coretype_set() {
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  return env && *env;
}

TEST(Gemm, KernelMatchesTheCpu) {
  if (user_coretype_set()) GTEST_SKIP() << "OPENBLAS_CORETYPE is set; ctest runs this with it empty";
  const GemmInfo& info = gemm_info();
  if (info.cpu.isa == Isa::unknown) {
    GTEST_SKIP() << "SKIPPED LOUDLY: cannot classify this CPU's ISA (" << describe(info.cpu)
                 << "), so cannot tell whether " << info.kernel << " is its best kernel";
  }
  // bf16 adds nothing to fp32 GEMM: SkylakeX on an AVX-512 bf16 CPU is as good as Cooperlake.
  auto fp32 = [](Isa isa) { return isa == Isa::avx512_bf16 ? Isa::avx512 : isa; };
  EXPECT_GE(fp32(info.kernel_isa), fp32(info.cpu.isa))
      << info.line(1) << " on " << describe(info.cpu) << ": the kernel is weaker than the CPU supports";
  EXPECT_FALSE(info.user_coretype);
  EXPECT_EQ(info.warning(), "");
  EXPECT_NE(info.line(2).find("gemm: OpenBLAS"), std::string::npos) << info.line(2);
}

TEST(Gemm, UserCoretypeWinsWithAWarning) {
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  if (!env || std::string(env) != "Prescott") GTEST_SKIP() << "ctest runs this with OPENBLAS_CORETYPE=Prescott";
  const GemmInfo& info = gemm_info();
  EXPECT_EQ(info.kernel, "Prescott");
  EXPECT_TRUE(info.user_coretype);
  EXPECT_NE(info.line(1).find("from OPENBLAS_CORETYPE"), std::string::npos);
  if (info.cpu.isa > Isa::sse3) {
    EXPECT_NE(info.warning().find("weaker than this CPU supports"), std::string::npos) << info.warning();
  }
}

TEST(Gemm, WarningNamesAWeakerKernelOnly) {
  GemmInfo info;
  info.cpu.isa = Isa::avx512_bf16;
  info.kernel = "Haswell";
  info.kernel_isa = openblas_core_isa(info.kernel);
  EXPECT_EQ(info.kernel_isa, Isa::avx2);
  EXPECT_NE(info.warning().find("Haswell (AVX2+FMA) is weaker"), std::string::npos) << info.warning();
  info.kernel = "SkylakeX";
  info.kernel_isa = openblas_core_isa(info.kernel);
  EXPECT_EQ(info.warning(), "");
  info.cpu.isa = Isa::avx2;
  info.kernel = "ZEN";
  info.kernel_isa = openblas_core_isa(info.kernel);
  EXPECT_EQ(info.kernel_isa, Isa::avx2);
  EXPECT_EQ(info.warning(), "");
  EXPECT_EQ(openblas_core_isa("NoSuchCore"), Isa::unknown);
  EXPECT_EQ(openblas_core_for(Isa::avx512), "SkylakeX");
  EXPECT_EQ(openblas_core_for(Isa::avx2), "Haswell");
}

template <typename F>
void check_against_loops(double tolerance) {
  const int m = 5, n = 7, k = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      std::vector<F> a(m * k), b(k * n), c(m * n, F(1));
      for (int i = 0; i < m * k; i++) a[i] = F(0.1) * F(i % 11) - F(0.3);
      for (int i = 0; i < k * n; i++) b[i] = F(0.2) * F(i % 7) - F(0.5);
      const int lda = ta ? m : k, ldb = tb ? k : n;
      gemm(ta, tb, m, n, k, F(2), a.data(), lda, b.data(), ldb, F(0.5), c.data(), n);
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          double sum = 0;
          for (int p = 0; p < k; p++) {
            sum += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
          }
          EXPECT_NEAR(double(c[i * n + j]), 2 * sum + 0.5, tolerance) << "ta=" << ta << " tb=" << tb;
        }
      }
    }
  }
}

// oneDNN computes what OpenBLAS computes, for every transpose, at shapes of few rows and larger
// ones, with ld* wider than the matrices; gemm_library picks it for dinp = dout W of few rows, and inp W^T of few rows on one thread.
TEST(Gemm, OnednnMatchesOpenblasForEveryTranspose) {
  if (gemm_info().onednn.empty()) {
    GTEST_SKIP() << "SKIPPED LOUDLY: oneDNN is not loaded (" << gemm_info().line(1)
                 << "); apt-get install libdnnl2, and leave ADJOINT_GEMM unset";
  }
  // Where our few-row kernel runs (an AVX2 CPU), it takes inp W^T of few rows first.
  const bool ours = cpu_features().isa >= Isa::avx2;
  EXPECT_EQ(gemm_library(false, false, 16, 768, 3072), GemmLibrary::onednn);
  EXPECT_EQ(gemm_library(false, false, kRowsTimesWeightMaxRows + 1, 768, 3072), GemmLibrary::onednn);
  EXPECT_EQ(gemm_library(false, false, 256, 768, 768), GemmLibrary::onednn);
  EXPECT_EQ(gemm_library(true, false, 3072, 768, 16), GemmLibrary::openblas);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  if (!ours) {
    EXPECT_EQ(gemm_library(false, true, 48, 3072, 768), GemmLibrary::openblas);
  }
  omp_set_num_threads(1);
  if (!ours) {
    EXPECT_EQ(gemm_library(false, true, 48, 3072, 768), GemmLibrary::onednn);
  }
  // Beyond our kernel's rows, oneDNN on one thread up to kOnednnMaxForwardRows at any depth.
  EXPECT_EQ(gemm_library(false, true, kFewRowsMaxRows, 3072, 768) == GemmLibrary::onednn, !ours);
  EXPECT_EQ(gemm_library(false, true, kOnednnMaxForwardRows, 768, 3072), GemmLibrary::onednn);
  EXPECT_EQ(gemm_library(false, true, kOnednnMaxForwardRows + 1, 768, 3072), GemmLibrary::openblas);
  omp_set_num_threads(2);
  EXPECT_EQ(gemm_library(false, true, kOnednnMaxForwardRows, 768, 3072), GemmLibrary::openblas);
  omp_set_num_threads(threads);
  EXPECT_EQ(gemm_library(false, false, 1024, 768, 3072), GemmLibrary::openblas);
  EXPECT_EQ(gemm_library(false, false, 16, 64, 16), GemmLibrary::openblas);
  EXPECT_NE(gemm_info().line(2).find("oneDNN"), std::string::npos) << gemm_info().line(2);
  for (const auto [m, n, k] : {std::array{16, 40, 300}, std::array{300, 40, 16}, std::array{100, 90, 80}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
        std::vector<float> a(std::size_t(ta ? k : m) * lda), b(std::size_t(tb ? n : k) * ldb);
        for (std::size_t i = 0; i < a.size(); i++) a[i] = float(i % 13) * 0.1f - 0.6f;
        for (std::size_t i = 0; i < b.size(); i++) b[i] = float(i % 7) * 0.2f - 0.5f;
        std::vector<float> c_openblas(std::size_t(m) * ldc, 1.0f), c_onednn = c_openblas;
        gemm_with(GemmLibrary::openblas, ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 1.0f, c_openblas.data(),
                  ldc);
        gemm_with(GemmLibrary::onednn, ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 1.0f, c_onednn.data(), ldc);
        double worst = 0;
        for (std::size_t i = 0; i < c_openblas.size(); i++) {
          worst = std::max(worst, double(std::fabs(c_openblas[i] - c_onednn[i])));
        }
        // k products of magnitude <= 0.6 x 0.7 summed in float: a few ulps of k x 0.42.
        EXPECT_LT(worst, 1e-5 * k) << "m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb;
      }
    }
  }
}

// ADJOINT_GEMM=openblas: every product on OpenBLAS, ours and oneDNN's shapes included.
TEST(Gemm, OpenblasOnlyWhenAsked) {
  const char* env = std::getenv("ADJOINT_GEMM");
  if (!env || std::string(env) != "openblas") GTEST_SKIP() << "ctest runs this with ADJOINT_GEMM=openblas";
  EXPECT_FALSE(gemm_info().few_rows);
  EXPECT_EQ(gemm_info().onednn, "");
  EXPECT_EQ(gemm_info().line(2).find("ours ("), std::string::npos) << gemm_info().line(2);
  EXPECT_EQ(gemm_library(false, true, 16, 3072, 768), GemmLibrary::openblas);
  EXPECT_EQ(gemm_library(false, false, 16, 768, 3072), GemmLibrary::openblas);
}

TEST(Gemm, MatchesLoopsForEveryTranspose) {
  check_against_loops<float>(1e-5);
  check_against_loops<double>(1e-12);
}

// Rows past kGemmRowBlock go in blocks. OpenBLAS computes rows at a partition's edge with other
// kernels (another order of the sum over k), so the blocks change some rows' rounding against one
// call: within the bound of a float sum of k products, 2·k·ε·Σ|a||b|; and the same bits every time.
TEST(Gemm, RowBlocksStayWithinRoundingOfOneCall) {
  const int m = 2 * kGemmRowBlock + 37, n = 24, k = 40;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n);
  for (std::size_t i = 0; i < a.size(); i++) a[i] = std::sin(0.37f * float(i));
  for (std::size_t i = 0; i < b.size(); i++) b[i] = std::cos(0.11f * float(i));
  for (bool trans_a : {false, true}) {
    const int lda = trans_a ? m : k;
    auto a_at = [&](int i, int p) { return trans_a ? a[std::size_t(p) * m + i] : a[std::size_t(i) * k + p]; };
    std::vector<float> blocks(std::size_t(m) * n, 0.5f), again(blocks), whole(blocks);
    gemm(trans_a, false, m, n, k, 1.0f, a.data(), lda, b.data(), n, 1.0f, blocks.data(), n);
    gemm(trans_a, false, m, n, k, 1.0f, a.data(), lda, b.data(), n, 1.0f, again.data(), n);
    gemm_with(gemm_library(trans_a, false, m, n, k), trans_a, false, m, n, k, 1.0f, a.data(), lda, b.data(), n, 1.0f,
              whole.data(), n);
    EXPECT_EQ(blocks, again) << "trans_a " << trans_a;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        float magnitude = 0.5f;
        for (int p = 0; p < k; p++) magnitude += std::abs(a_at(i, p) * b[std::size_t(p) * n + j]);
        const std::size_t at = std::size_t(i) * n + j;
        ASSERT_NEAR(blocks[at], whole[at], 2.0f * k * 1.2e-7f * magnitude) << "row " << i << " trans_a " << trans_a;
      }
    }
  }
}

}  // namespace
}  // namespace adjoint
