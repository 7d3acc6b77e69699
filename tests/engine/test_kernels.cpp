// Every kernel's backward against central finite differences, in double precision.
//
// For a kernel y = f(x₁, x₂, …) we take the scalar L = Σ r·y with a fixed random r, run the
// backward with dy = r, and compare each input's gradient with (L(x+h) - L(x-h)) / 2h at
// every element. Tolerance: |analytic - numeric| <= 1e-6 · max(1, |numeric|), with h = 1e-5
// (the truncation error is O(h²) ≈ 1e-10 and rounding O(ε/h) ≈ 1e-11 on these sizes).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "adjoint/kernels.hpp"
#include "adjoint/random.hpp"

namespace {

using namespace adjoint::kernels;
using Vec = std::vector<double>;

Vec random_vec(std::size_t n, adjoint::Rng& rng, double scale = 1.0) {
  Vec v(n);
  for (double& x : v) x = scale * rng.normal();
  return v;
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); i++) s += a[i] * b[i];
  return s;
}

// Checks analytic, the gradient of loss() with respect to x, element by element.
void expect_gradient(const std::string& name, Vec& x, const Vec& analytic,
                     const std::function<double()>& loss) {
  ASSERT_EQ(x.size(), analytic.size()) << name;
  const double h = 1e-5;
  int failures = 0;
  for (std::size_t i = 0; i < x.size(); i++) {
    const double saved = x[i];
    x[i] = saved + h;
    const double plus = loss();
    x[i] = saved - h;
    const double minus = loss();
    x[i] = saved;
    const double numeric = (plus - minus) / (2 * h);
    if (std::abs(analytic[i] - numeric) > 1e-6 * std::max(1.0, std::abs(numeric)) && failures++ < 5) {
      ADD_FAILURE() << name << "[" << i << "]: analytic " << analytic[i] << " numeric " << numeric;
    }
  }
}

TEST(KernelGradients, Encoder) {
  adjoint::Rng rng(1);
  const int B = 2, T = 3, C = 5, V = 4, maxT = 4;
  const std::vector<int> tokens = {0, 3, 3, 1, 0, 3};  // repeated ids exercise the scatter
  Vec wte = random_vec(V * C, rng), wpe = random_vec(maxT * C, rng), r = random_vec(B * T * C, rng);
  Vec out(B * T * C);
  auto loss = [&] {
    encoder_forward(out.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
    return dot(out, r);
  };
  Vec dwte(V * C), dwpe(maxT * C);
  encoder_backward(dwte.data(), dwpe.data(), r.data(), tokens.data(), B, T, C);
  expect_gradient("wte", wte, dwte, loss);
  expect_gradient("wpe", wpe, dwpe, loss);
}

TEST(KernelGradients, LayerNorm) {
  adjoint::Rng rng(2);
  const int N = 4, C = 7;
  Vec x = random_vec(N * C, rng, 2.0), w = random_vec(C, rng), b = random_vec(C, rng);
  Vec r = random_vec(N * C, rng), out(N * C), mean(N), rstd(N);
  auto loss = [&] {
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
    return dot(out, r);
  };
  loss();
  Vec dx(N * C), dw(C), db(C);
  layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(),
                     rstd.data(), N, C);
  expect_gradient("inp", x, dx, loss);
  expect_gradient("weight", w, dw, loss);
  expect_gradient("bias", b, db, loss);
}

TEST(KernelGradients, Matmul) {
  adjoint::Rng rng(3);
  const int N = 5, C = 6, OC = 7;
  Vec x = random_vec(N * C, rng), w = random_vec(OC * C, rng), b = random_vec(OC, rng);
  Vec r = random_vec(N * OC, rng), out(N * OC);
  auto loss = [&] {
    matmul_forward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
    return dot(out, r);
  };
  Vec dx(N * C), dw(OC * C), db(OC);
  matmul_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC);
  expect_gradient("inp", x, dx, loss);
  expect_gradient("weight", w, dw, loss);
  expect_gradient("bias", b, db, loss);
}

TEST(KernelGradients, Attention) {
  adjoint::Rng rng(4);
  const int B = 2, T = 5, C = 6, NH = 3;
  Vec qkv = random_vec(B * T * 3 * C, rng), r = random_vec(B * T * C, rng);
  Vec out(B * T * C), att(B * NH * T * T), att_sum(B * NH * T);
  auto loss = [&] {
    attention_forward(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, C, NH);
    return dot(out, r);
  };
  loss();
  Vec dqkv(qkv.size()), scratch(B * NH * T);
  attention_backward(dqkv.data(), scratch.data(), r.data(), qkv.data(), att.data(), B, T, C, NH);
  expect_gradient("qkv", qkv, dqkv, loss);
}

// Grouped query heads: NH=6 query heads on NKV=2 and 3 key/value heads (and 6, GPT-2's case);
// every key/value head receives gradient from several query heads.
TEST(KernelGradients, GroupedAttention) {
  for (const int NKV : {2, 3, 6}) {
    adjoint::Rng rng(40 + NKV);
    const int B = 2, T = 5, NH = 6, hs = 4;
    Vec qkv = random_vec(B * T * (NH + 2 * NKV) * hs, rng), r = random_vec(B * T * NH * hs, rng);
    Vec out(B * T * NH * hs), att(B * NH * T * T), att_sum(B * NH * T);
    auto loss = [&] {
      grouped_attention_forward(out.data(), att.data(), att_sum.data(), qkv.data(), B, T, NH, NKV, hs);
      return dot(out, r);
    };
    loss();
    Vec dqkv(qkv.size()), scratch(B * NH * T);
    grouped_attention_backward(dqkv.data(), scratch.data(), r.data(), qkv.data(), att.data(), B, T, NH, NKV, hs);
    expect_gradient("qkv NKV=" + std::to_string(NKV), qkv, dqkv, loss);
  }
}

TEST(KernelGradients, GroupedAttentionAtOnePositionMatchesTheFullPass) {
  adjoint::Rng rng(45);
  const int T = 4, NH = 6, NKV = 2, hs = 4, C = NH * hs;
  Vec qkv = random_vec(T * (NH + 2 * NKV) * hs, rng), out(T * C), att(NH * T * T), att_sum(NH * T), one(C),
      att_row(T);
  grouped_attention_forward(out.data(), att.data(), att_sum.data(), qkv.data(), 1, T, NH, NKV, hs);
  for (int t = 0; t < T; t++) {
    grouped_attention_forward_position(one.data(), att_row.data(), qkv.data(), t, NH, NKV, hs);
    for (int i = 0; i < C; i++) EXPECT_NEAR(one[i], out[t * C + i], 1e-12) << "position " << t;
  }
}

TEST(KernelGradients, RmsNorm) {
  adjoint::Rng rng(9);
  const int N = 4, C = 7;
  Vec x = random_vec(N * C, rng, 2.0), w = random_vec(C, rng), r = random_vec(N * C, rng), out(N * C), rstd(N);
  auto loss = [&] {
    rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, 1e-5f);
    return dot(out, r);
  };
  loss();
  Vec dx(N * C), dw(C);
  rmsnorm_backward(dx.data(), dw.data(), r.data(), x.data(), w.data(), rstd.data(), N, C);
  expect_gradient("inp", x, dx, loss);
  expect_gradient("weight", w, dw, loss);
}

// Three heads per row, the first two rotated (a packed q, k, v of one head each).
TEST(KernelGradients, Rope) {
  adjoint::Rng rng(10);
  const int B = 2, T = 3, heads = 3, rotated = 2, hs = 6;
  Vec x = random_vec(B * T * heads * hs, rng), r = random_vec(x.size(), rng), out(x.size());
  Vec cos(T * hs / 2), sin(T * hs / 2);
  for (int t = 0; t < T; t++)
    for (int i = 0; i < hs / 2; i++) {
      cos[t * hs / 2 + i] = std::cos(t * (1.0 + i));
      sin[t * hs / 2 + i] = std::sin(t * (1.0 + i));
    }
  auto loss = [&] {
    rope_forward(out.data(), x.data(), cos.data(), sin.data(), B, T, rotated, heads, hs);
    return dot(out, r);
  };
  loss();
  // Meta's pairing: channels 0 and 1 of a head are one complex number.
  const double angle = 2 * 1.0;  // position 2, pair 0
  EXPECT_NEAR(out[2 * heads * hs], x[2 * heads * hs] * std::cos(angle) - x[2 * heads * hs + 1] * std::sin(angle),
              1e-12);
  EXPECT_EQ(out[(rotated)*hs], x[(rotated)*hs]);  // value heads are copied
  Vec dx(x.size());
  rope_backward(dx.data(), r.data(), cos.data(), sin.data(), B, T, rotated, heads, hs);
  expect_gradient("inp", x, dx, loss);
}

TEST(KernelGradients, SwiGlu) {
  adjoint::Rng rng(11);
  const int N = 30;
  Vec gate = random_vec(N, rng, 3.0), up = random_vec(N, rng), r = random_vec(N, rng), out(N);
  auto loss = [&] {
    swiglu_forward(out.data(), gate.data(), up.data(), N);
    return dot(out, r);
  };
  Vec dgate(N), dup(N);
  swiglu_backward(dgate.data(), dup.data(), r.data(), gate.data(), up.data(), N);
  expect_gradient("gate", gate, dgate, loss);
  expect_gradient("up", up, dup, loss);
}

TEST(KernelGradients, Gelu) {
  adjoint::Rng rng(5);
  const int N = 40;
  Vec x = random_vec(N, rng, 3.0), r = random_vec(N, rng), out(N);
  auto loss = [&] {
    gelu_forward(out.data(), x.data(), N);
    return dot(out, r);
  };
  Vec dx(N);
  gelu_backward(dx.data(), x.data(), r.data(), N);
  expect_gradient("inp", x, dx, loss);
}

TEST(KernelGradients, Residual) {
  adjoint::Rng rng(6);
  const int N = 9;
  Vec a = random_vec(N, rng), b = random_vec(N, rng), r = random_vec(N, rng), out(N);
  auto loss = [&] {
    residual_forward(out.data(), a.data(), b.data(), N);
    return dot(out, r);
  };
  Vec da(N), db(N);
  residual_backward(da.data(), db.data(), r.data(), N);
  expect_gradient("inp1", a, da, loss);
  expect_gradient("inp2", b, db, loss);
}

TEST(KernelGradients, SoftmaxCrossEntropyOverPaddedVocab) {
  adjoint::Rng rng(7);
  const int N = 4, V = 6, Vp = 8;
  const std::vector<int> targets = {0, 5, 2, 5};
  Vec logits = random_vec(N * Vp, rng, 2.0), r = random_vec(N, rng);
  Vec losses(N), probs(N * Vp);
  auto loss = [&] {
    softmax_crossentropy_forward(losses.data(), probs.data(), logits.data(), targets.data(), N, V, Vp);
    return dot(losses, r);
  };
  loss();
  Vec dlogits(N * Vp);
  softmax_crossentropy_backward(dlogits.data(), probs.data(), targets.data(), r.data(), N, V, Vp);
  expect_gradient("logits", logits, dlogits, loss);
  for (int i = 0; i < N; i++) {
    for (int v = V; v < Vp; v++) EXPECT_EQ(probs[i * Vp + v], 0.0) << "padded column has probability";
  }
}

TEST(KernelGradients, BackwardAccumulates) {
  // Backward adds into gradients: running it twice doubles them.
  adjoint::Rng rng(8);
  const int N = 3, C = 4, OC = 2;
  Vec x = random_vec(N * C, rng), w = random_vec(OC * C, rng), r = random_vec(N * OC, rng);
  Vec dx(N * C), dw(OC * C), db(OC);
  matmul_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC);
  const Vec once = dw;
  matmul_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC);
  for (std::size_t i = 0; i < dw.size(); i++) EXPECT_DOUBLE_EQ(dw[i], 2 * once[i]);
}

}  // namespace
