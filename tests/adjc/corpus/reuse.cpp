// Corpus: the reverse of `m[k] = exp/tanh/sqrt(x)` reads the call's value back from m[k] when
// every later write to m is taped (so m[k] holds it again by then), and calls the function again
// when something untaped overwrote m[k] since. Each case is checked against finite differences;
// the generated source shows which of the two adjc chose (counted math calls).
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// llm.c's softmax: exponentials into probs, normalised in place (which tapes them).
void softmax_in_place(double* probs, const double* logits, int rows, int V) {
  for (int r = 0; r < rows; r++) {
    const double* x = logits + r * V;
    double* p = probs + r * V;
    double maxv = x[0];
    for (int i = 1; i < V; i++)
      if (x[i] > maxv) maxv = x[i];
    double sum = 0;
    for (int i = 0; i < V; i++) {
      p[i] = std::exp(x[i] - maxv);
      sum += p[i];
    }
    for (int i = 0; i < V; i++) p[i] = p[i] / sum;
  }
}
// Scores turned into exponentials in place: only the exponential's own reverse read the score,
// and it reads the result back instead, so the score is not taped.
void exp_in_place(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = 2 * x[i];
    y[i] = std::exp(y[i] - 1);
  }
}
// The same, but an earlier statement's reverse reads the score too: taped.
void exp_in_place_score_read(double* y, double* z, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = 2 * x[i];
    z[i] = y[i] * y[i];
    y[i] = std::exp(y[i] - 1);
  }
}
// The target is read by the call and overwritten again by taped updates.
void in_place_chain(double* y, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = std::tanh(y[i]);
    y[i] = y[i] * y[i];
    y[i] = std::sqrt(y[i] + 1);
    y[i] = y[i] * y[i] * y[i];
  }
}
// y[0] is overwritten later, untaped (the reverse never needs its old value).
void exp_then_overwritten(double* y, const double* x) {
  y[0] = std::exp(x[0]);
  y[1] = 2 * y[0];
  y[0] = 3 * x[1];
}
// The same statement overwrites y[0] in every later iteration, untaped.
void exp_each_iteration(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    y[0] = std::exp(x[i]);
    y[1 + i] = 2 * y[0];
  }
}
// Each row's exponentials overwrite the previous row's in y, untaped (only one loop's later
// iterations are known to write other elements).
void exp_rows(double* y, double* z, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < n; i++) {
      y[i] = std::exp(x[r * n + i]);
      z[r * n + i] = 2 * y[i];
    }
}
// A call writes y[0] after the exponential.
void set_first(double* y, double v) { y[0] = v; }
void exp_then_call(double* y, const double* x) {
  y[0] = std::exp(x[0]);
  y[1] = 2 * y[0];
  set_first(y, 3 * x[1]);
}
// The float target would round a double exponential: the value differs from the call's.
void exp_rounded(float* y, const float* x, int n) {
  for (int i = 0; i < n; i++) {
    y[i] = std::exp(double(x[i]));
    y[i] = y[i] * x[i];
  }
}
// A local defined with a tanh in a loop: taped once per iteration (not computed again in the
// reverse), and the tanh's own reverse reads its value back from the local.
void tanh_local(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    double t = std::tanh(2 * x[i]);
    y[i] = t * x[i] + t * t;
  }
}
// A local defined with an exponential of a double, rounded to float: taped, but its derivative
// calls the exponential again (the local's value is not the call's).
void exp_local_rounded(float* y, const float* x, int n) {
  for (int i = 0; i < n; i++) {
    float e = std::exp(double(x[i]));
    y[i] = e * x[i];
  }
}
// A local of sqrt alone (a cheap call): recomputed, as before.
void sqrt_local(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) {
    double r = std::sqrt(x[i] * x[i] + 1);
    y[i] = r * x[i];
  }
}

TEST(Reuse, softmax_in_place) {
  auto g = adjoint::gradient(softmax_in_place);
  check("softmax_in_place", g, softmax_in_place, Out<double>{12}, In<double>{12, -3, 3}, 3, 4);
  EXPECT_EQ(occurrences(g.source(), "exp("), 1) << g.source();  // the forward's only
  // Only the exponentials are taped, in one block per row (probs' earlier contents are not: each
  // row owns its elements).
  EXPECT_EQ(occurrences(g.source(), "::adjoint::detail::push_n("), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "] = ::adjoint::detail::pop<double>()"), 0) << g.source();
}
TEST(Reuse, exp_in_place) {
  auto g = adjoint::gradient(exp_in_place);
  check("exp_in_place", g, exp_in_place, Out<double>{5}, In<double>{5, -2, 2}, 5);
  EXPECT_EQ(occurrences(g.source(), "exp("), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "push(y["), 0) << g.source();
}
TEST(Reuse, exp_in_place_score_read) {
  auto g = adjoint::gradient(exp_in_place_score_read);
  check("exp_in_place_score_read", g, exp_in_place_score_read, Out<double>{5}, Out<double>{5}, In<double>{5, -2, 2}, 5);
  EXPECT_EQ(occurrences(g.source(), "push(y["), 1) << g.source();
}
TEST(Reuse, in_place_chain) {
  auto g = adjoint::gradient(in_place_chain);
  check("in_place_chain", g, in_place_chain, InOut<double>{5, -2, 2}, 5);
  EXPECT_EQ(occurrences(g.source(), "tanh("), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "sqrt("), 1) << g.source();
}
TEST(Reuse, exp_then_overwritten) {
  auto g = adjoint::gradient(exp_then_overwritten);
  check("exp_then_overwritten", g, exp_then_overwritten, Out<double>{2}, In<double>{2});
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
}
TEST(Reuse, exp_each_iteration) {
  auto g = adjoint::gradient(exp_each_iteration);
  check("exp_each_iteration", g, exp_each_iteration, Out<double>{5}, In<double>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
}
TEST(Reuse, exp_rows) {
  auto g = adjoint::gradient(exp_rows);
  check("exp_rows", g, exp_rows, Out<double>{3}, Out<double>{6}, In<double>{6}, 2, 3);
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
}
TEST(Reuse, exp_then_call) {
  auto g = adjoint::gradient(exp_then_call);
  check("exp_then_call", g, exp_then_call, Out<double>{2}, In<double>{2});
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
}
TEST(Reuse, exp_rounded) {
  auto g = adjoint::gradient(exp_rounded);
  check("exp_rounded", g, exp_rounded, Out<float>{4}, In<float>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
}
TEST(Reuse, tanh_local) {
  auto g = adjoint::gradient(tanh_local);
  check("tanh_local", g, tanh_local, Out<double>{5}, In<double>{5, -2, 2}, 5);
  EXPECT_EQ(occurrences(g.source(), "tanh("), 1) << g.source();  // the forward's only
  EXPECT_EQ(occurrences(g.source(), "::adjoint::detail::push(t)"), 1) << g.source();
}
TEST(Reuse, exp_local_rounded) {
  auto g = adjoint::gradient(exp_local_rounded);
  check("exp_local_rounded", g, exp_local_rounded, Out<float>{4}, In<float>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "exp("), 2) << g.source();
  EXPECT_EQ(occurrences(g.source(), "::adjoint::detail::push(e)"), 1) << g.source();
}
TEST(Reuse, sqrt_local) {
  auto g = adjoint::gradient(sqrt_local);
  check("sqrt_local", g, sqrt_local, Out<double>{4}, In<double>{4}, 4);
  EXPECT_EQ(occurrences(g.source(), "sqrt("), 2) << g.source();
  EXPECT_EQ(occurrences(g.source(), "::adjoint::detail::push("), 0) << g.source();
}
