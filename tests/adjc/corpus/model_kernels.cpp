// Corpus: the models' kernels whose reverse the generated GPT-2 and Llama backward take from adjc
// (adjoint/kernels.hpp), each against central differences at odd shapes, in double. The token
// embedding scatters into rows of wte that repeated tokens share: its loops run over channels, so
// every thread of the reverse owns its channels and needs no atomics.
#include <adjoint/ad.hpp>

#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include "adjoint/kernels.hpp"
#include "gradcheck.hpp"

namespace gradcheck {
// An array f writes only for its own reverse, which nothing else reads: its adjoint is zero on
// entry, not seeded, and it adds nothing to the objective (attention's rows' sums).
template <class T>
struct Kept {
  std::size_t n;
};
template <class T>
ArrayArg<T, true> make(Kept<T> r, std::mt19937& g) {
  return {r.n, 0, 0, false, false, g};
}
}  // namespace gradcheck

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

// C = 5 runs in blocks of one channel, C = 12 in three blocks of four.
TEST_F(ModelKernels, encoder_with_repeated_tokens) {
  auto g = adjoint::gradient(encoder_forward<double>, "out, wte, wpe");
  for (int C : {5, 12}) {
    const std::size_t c = C;
    check("encoder_forward", g, encoder_forward<double>, Out<double>{kB * kT * c}, Fixed<const int*>{kTokens.data()},
          In<double>{kV * c}, In<double>{kT * c}, kB, kT, C);
  }
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

TEST_F(ModelKernels, embedding_with_repeated_tokens) {
  auto g = adjoint::gradient(embedding_forward<double>, "out, wte");
  for (int C : {6, 16}) {
    const std::size_t c = C;
    check("embedding_forward", g, embedding_forward<double>, Out<double>{kB * kT * c},
          Fixed<const int*>{kTokens.data()}, In<double>{kV * c}, kB, kT, C);
  }
  EXPECT_EQ(occurrences(g.source(), "#pragma omp atomic"), 0) << g.source();
}

// Softmax + cross-entropy over V = 7 of Vp = 9 logits per row, one row without a target. The
// probabilities carry no derivative of their own (Kept: their adjoint is zero on entry).
TEST_F(ModelKernels, softmax_crossentropy) {
  auto g = adjoint::gradient(softmax_crossentropy_forward<double>, "losses, probs, logits");
  const int N = 5, V = 7, Vp = 9;
  const std::vector<int> targets = {3, 0, no_target, 6, 3};
  check("softmax_crossentropy_forward", g, softmax_crossentropy_forward<double>, Out<double>{N}, Kept<double>{N * Vp},
        In<double>{N * Vp, -4, 4}, Fixed<const int*>{targets.data()}, N, V, Vp);
  const std::string source = g.source();
  // Rows are each thread's own, the log-sum-exp is a constant and the probabilities are read back:
  // no atomics, nothing taped per element, and the reverse neither recomputes the log-sum-exp (no
  // exponential but the forward's two) nor undoes a normalisation (one pass over the row).
  EXPECT_EQ(occurrences(source.c_str(), "#pragma omp atomic"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(p["), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push_n"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(maxval)"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "exp("), 2) << source;
}

// GPT-2's causal attention, B = 2, T = 7, NH = 5 heads of hs = 3 on 3 threads: the probabilities'
// adjoints are seeded too, so the softmax's reverse is checked with the weighted sum's. The rows'
// sums are the reverse's own (Kept): they depend on the row maximum, which adjc holds constant.
TEST_F(ModelKernels, attention) {
  auto g = adjoint::gradient(attention_forward<double>);
  const int B = 2, T = 7, NH = 5, C = NH * 3;
  check("attention_forward", g, attention_forward<double>, Out<double>{B * T * C}, Out<double>{B * NH * T * T},
        Kept<double>{B * NH * T}, In<double>{B * T * 3 * C, -2, 2}, B, T, C, NH);
  const std::string source = g.source();
  // Each head owns its q, k, v, out, probabilities and sums (no atomics); the scores are read back
  // from the probabilities, the maximum is dead once they are, and the reciprocal of the sum is
  // read again from att_sum: nothing taped per element or per row.
  EXPECT_EQ(occurrences(source.c_str(), "#pragma omp atomic"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(att_row["), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push_n"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(maxval)"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(sum)"), 0) << source;
}

// Llama's grouped attention, B = 2, T = 5, NH = 6 query heads on NKV = 2 and 3 key/value heads of
// hs = 3, on 3 threads (more than NKV = 2). Every key and value receives gradient from the G query
// heads of its group.
TEST_F(ModelKernels, grouped_attention) {
  auto g = adjoint::gradient(grouped_attention_forward<double>);
  for (const int NKV : {2, 3}) {
    const int B = 2, T = 5, NH = 6, hs = 3, QKV = (NH + 2 * NKV) * hs;
    const std::string name = "grouped_attention_forward NKV=" + std::to_string(NKV);
    check(name.c_str(), g, grouped_attention_forward<double>, Out<double>{B * T * NH * hs}, Out<double>{B * NH * T * T},
          Kept<double>{B * NH * T}, In<double>{std::size_t(B * T * QKV), -2, 2}, B, T, NH, NKV, hs);
  }
  const std::string source = g.source();
  // Each key/value head owns its group's q, k, v, out, probabilities and sums: no atomics, nothing
  // taped per element or per row.
  EXPECT_EQ(occurrences(source.c_str(), "#pragma omp atomic"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(att_row["), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push_n"), 0) << source;
  EXPECT_EQ(occurrences(source.c_str(), "push(sum)"), 0) << source;
}

// The same written in place, as the models call it (probs over logits): the reverse reads only
// the probabilities, and the logits' adjoint (sharing memory with the probabilities' adjoint,
// zero on entry) is the losses' gradient, checked against central differences.
TEST_F(ModelKernels, softmax_crossentropy_in_place) {
  auto g = adjoint::gradient(softmax_crossentropy_forward<double>, "losses, probs, logits");
  const int N = 4, V = 5, Vp = 6;
  const std::vector<int> targets = {2, no_target, 0, 4};
  std::vector<double> logits(N * Vp), weights(N);
  for (int i = 0; i < N * Vp; i++) logits[i] = std::sin(1.7 * i) * 3;
  for (int i = 0; i < N; i++) weights[i] = 0.5 + i;
  auto objective = [&](const std::vector<double>& z) {
    std::vector<double> buffer = z, losses(N);
    softmax_crossentropy_forward(losses.data(), buffer.data(), buffer.data(), targets.data(), N, V, Vp);
    double j = 0;
    for (int i = 0; i < N; i++) j += weights[i] * losses[i];
    return j;
  };
  std::vector<double> buffer = logits, losses(N), d_losses = weights, d_buffer(N * Vp, 0.0);
  g.execute(losses.data(), buffer.data(), buffer.data(), targets.data(), N, V, Vp, d_losses.data(), d_buffer.data(),
            d_buffer.data());
  for (int k = 0; k < N * Vp; k++) {
    std::vector<double> up = logits, down = logits;
    up[k] += 1e-6;
    down[k] -= 1e-6;
    const double fd = (objective(up) - objective(down)) / 2e-6;
    EXPECT_NEAR(d_buffer[k], fd, 1e-6 * std::fmax(1.0, std::fabs(fd))) << "logit " << k;
  }
}

}  // namespace
