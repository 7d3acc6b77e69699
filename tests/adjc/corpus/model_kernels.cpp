// Corpus: the models' kernels whose reverse the generated GPT-2 and Llama backward take from adjc
// (adjoint/kernels.hpp), each against central differences at odd shapes, in double. The token
// embedding scatters into rows of wte that repeated tokens share: its loops run over channels, so
// every thread of the reverse owns its channels and needs no atomics.
#include <adjoint/ad.hpp>

#include <omp.h>

#include <vector>

#include "adjoint/kernels.hpp"
#include "gradcheck.hpp"

using namespace gradcheck;
using namespace adjoint::kernels;

namespace {

class ModelKernels : public ::testing::Test {
 protected:
  void SetUp() override { omp_set_num_threads(3); }
};

// B=2, T=3 positions over a vocabulary of 4, token 1 three times and token 3 twice.
const std::vector<int> kTokens = {1, 3, 1, 0, 1, 3};
constexpr int kB = 2, kT = 3, kV = 4;

TEST_F(ModelKernels, layernorm) {
  auto g = adjoint::gradient(layernorm_forward<double>);
  const int N = 5, C = 7;
  check("layernorm_forward", g, layernorm_forward<double>, Out<double>{N * C}, Out<double>{N}, Out<double>{N},
        In<double>{N * C}, In<double>{C}, In<double>{C}, N, C);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
  // The row's mean and deviation are sums its reverse runs again: nothing is taped per row.
  EXPECT_EQ(occurrences(g.source(), "push(m)"), 0) << g.source();
}

TEST_F(ModelKernels, encoder_with_repeated_tokens) {
  auto g = adjoint::gradient(encoder_forward<double>, "out, wte, wpe");
  const int C = 5;
  check("encoder_forward", g, encoder_forward<double>, Out<double>{kB * kT * C}, Fixed<const int*>{kTokens.data()},
        In<double>{kV * C}, In<double>{kT * C}, kB, kT, C);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

TEST_F(ModelKernels, embedding_with_repeated_tokens) {
  auto g = adjoint::gradient(embedding_forward<double>, "out, wte");
  const int C = 6;
  check("embedding_forward", g, embedding_forward<double>, Out<double>{kB * kT * C}, Fixed<const int*>{kTokens.data()},
        In<double>{kV * C}, kB, kT, C);
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

}  // namespace
