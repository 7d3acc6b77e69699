// Corpus: loop bounds and branch conditions the reverse evaluates again instead of taping. A
// counted loop's start and trip count, and an `if` on integers, cost nothing per execution when
// the variables they read hold in the reverse what they held in the forward; where a later write
// changes such a variable, that write is taped instead. Each case is checked against finite
// differences (a bound or branch evaluated with the wrong values gives a wrong gradient).
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// out (N,OC) = inp (N,C) · w (OC,C)ᵀ: the inner loop runs once per output element.
void matmul(double* out, const double* inp, const double* w, int N, int C, int OC) {
  for (int i = 0; i < N; i++)
    for (int o = 0; o < OC; o++) {
      double v = 0;
      for (int c = 0; c < C; c++) v += inp[i * C + c] * w[o * C + c];
      out[i * OC + o] = v;
    }
}
// Bounds from a local (kept once), from an enclosing counter (t2 <= t), a start past zero, a step.
void triangle(double* y, const double* x, int n) {
  const int half = n / 2;
  for (int t = 0; t < n; t++) {
    for (int t2 = 0; t2 <= t; t2++) y[t] += x[t2] * x[t];
    for (int j = half; j < n; j++) y[t] += std::sin(x[j]) * x[t];
    for (int j = t + 1; j < n; j += 3) y[t] += x[j] * x[j] * x[t];
    for (int j = -2; j < half - 2; j++) y[t] += x[j + 2] * x[t];
  }
}
// The bound's variable changes after the loop: each change is taped so that the reverse runs the
// loop as often as the forward did.
void shrinking(double* y, const double* x, int n) {
  int m = n;
  for (int r = 0; r < n; r++) {
    for (int j = 0; j < m; j++) y[r] += x[j] * x[r];
    m = m - 1;
  }
}
// The bound's variable changes inside the loop (not invariant): the trip count is taped.
void changing_bound(double* y, const double* x, int n) {
  int m = n;
  for (int j = 0; j < m; j++) {
    y[j] = x[j] * x[j];
    if (x[j] > 0.5) m = m - 1;
  }
}
// A causal mask on integers is evaluated again; a condition on a variable its branch changes, and
// one on a variable changed after it, are recorded or taped.
void masked(double* y, const double* x, int n) {
  for (int t = 0; t < n; t++)
    for (int t2 = 0; t2 < n; t2++) {
      if (t2 <= t) y[t * n + t2] = x[t2] * x[t];
      else y[t * n + t2] = 0;
    }
}
void counted_branch(double* y, const double* x, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k < 2) {
      y[i] = x[i] * x[i];
      k = k + 1;
    } else {
      y[i] = x[i] * 3;
    }
  }
}
void parity_branch(double* y, const double* x, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k % 2 == 0) y[i] = x[i] * x[i];
    else y[i] = std::sin(x[i]);
    k = k + i;
  }
}

// A read in one branch and a write in the other never meet in one iteration, and each iteration
// has its own x[i]: not taped. The same read before a write after the `if` is taped.
double branch_read_other_branch_write(double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) s += x[i] * x[i];
    else x[i] = 3 * s;
  }
  return s;
}
double branch_read_then_overwrite(double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) s += x[i] * x[i];
    else s += 2 * x[i];
    x[i] = 3 * s;
  }
  return s;
}

TEST(LoopBounds, matmul) {
  auto g = adjoint::gradient(matmul);
  check("matmul", g, matmul, Out<double>{12}, In<double>{15}, In<double>{20}, 3, 5, 4);
  EXPECT_EQ(occurrences(g.source(), "pop_count()"), 0) << g.source();
}
TEST(LoopBounds, triangle) {
  auto g = adjoint::gradient(triangle);
  check("triangle", g, triangle, InOut<double>{7}, In<double>{7}, 7);
  EXPECT_EQ(occurrences(g.source(), "pop_count()"), 0) << g.source();
}
// Steps written as assignments (`i = i + 2`, `i = i - 3`, `i = 2 + i`) are counted loops too: the
// upward ones' trip counts are computed again in the reverse (only the downward loop's start and
// trip count are taped, as for `i -= 3`).
double assigned_steps(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i = i + 2) s += x[i] * x[i];
  for (int i = n - 1; i >= 0; i = i - 3) s = s * 0.5 + std::sin(x[i]);
  for (int i = 1; i < n; i = 2 + i) s += x[i] * s;
  return s;
}
TEST(LoopBounds, assigned_steps) {
  auto g = adjoint::gradient(assigned_steps);
  check("assigned_steps", g, assigned_steps, In<double>{7}, 7);
  EXPECT_EQ(occurrences(g.source(), "pop_count()"), 2) << g.source();
}
TEST(LoopBounds, shrinking) {
  auto g = adjoint::gradient(shrinking);
  check("shrinking", g, shrinking, InOut<double>{6}, In<double>{6}, 6);
}
TEST(LoopBounds, changing_bound) {
  auto g = adjoint::gradient(changing_bound);
  check("changing_bound", g, changing_bound, Out<double>{9}, In<double>{9, -1, 1}, 9);
  EXPECT_GT(occurrences(g.source(), "pop_count()"), 0) << g.source();
}
TEST(LoopBounds, masked) {
  auto g = adjoint::gradient(masked);
  check("masked", g, masked, Out<double>{25}, In<double>{5}, 5);
  EXPECT_EQ(occurrences(g.source(), "pop_branch()") + occurrences(g.source(), "pop<unsigned long long>()") +
                occurrences(g.source(), "pop_count()"),
            0)
      << g.source();
}
TEST(LoopBounds, counted_branch) {
  auto g = adjoint::gradient(counted_branch);
  check("counted_branch", g, counted_branch, Out<double>{6}, In<double>{6}, 6);
  EXPECT_GT(occurrences(g.source(), "pop<unsigned long long>()"), 0) << g.source();
}
TEST(LoopBounds, parity_branch) {
  auto g = adjoint::gradient(parity_branch);
  check("parity_branch", g, parity_branch, Out<double>{7}, In<double>{7}, 7);
}

// The matmul's tape is empty at every size: no bounds per output element.
inline void matmul_forward(double* out, const double* inp, const double* w, int N, int C, int OC);
TEST(LoopBounds, matmul_tapes_nothing) {
  for (int n : {2, 20}) {
    std::vector<double> out(n * n), inp(n * n, 0.5), w(n * n, 0.25);
    const std::size_t before = adjoint::thread_tape_bytes();
    matmul_forward(out.data(), inp.data(), w.data(), n, n, n);
    EXPECT_EQ(adjoint::thread_tape_bytes(), before) << n;
  }
}
TEST(LoopBounds, branch_read_other_branch_write) {
  auto g = adjoint::gradient(branch_read_other_branch_write);
  check("branch_read_other_branch_write", g, branch_read_other_branch_write, InOut<double>{7}, 7);
  EXPECT_EQ(occurrences(g.source(), "x[i] = ::adjoint::detail::pop<double>()"), 0) << g.source();
}
TEST(LoopBounds, branch_read_then_overwrite) {
  auto g = adjoint::gradient(branch_read_then_overwrite);
  check("branch_read_then_overwrite", g, branch_read_then_overwrite, InOut<double>{7}, 7);
  EXPECT_EQ(occurrences(g.source(), "x[i] = ::adjoint::detail::pop<double>()"), 1) << g.source();
}
