// The GEMM runs the kernel for this CPU's ISA unless the user chose another, says so, and computes
// what CBLAS would. ctest runs the kernel checks twice: with OPENBLAS_CORETYPE empty (the default
// every user gets) and with it set to the oldest kernel (the user's choice wins, with a warning).
#include <gtest/gtest.h>

#include <cstdlib>
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

TEST(Gemm, MatchesLoopsForEveryTranspose) {
  check_against_loops<float>(1e-5);
  check_against_loops<double>(1e-12);
}

}  // namespace
}  // namespace adjoint
