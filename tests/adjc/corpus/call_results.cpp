// Corpus: results of calls to small arithmetic functions (`silu(a[i])`) are computed again in the
// reverse instead of taped per element, when calling again gives the same value: the function is
// plain arithmetic on its value parameters and its arguments are not overwritten later in the
// iteration. Otherwise the result is taped. Each case is checked against finite differences.
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

double silu(double a) { return a / (1 + std::exp(-a)); }
// A loop in the callee: calling again costs more than the tape.
double int_power(double a, int k) {
  double p = 1;
  for (int i = 0; i < k; i++) p *= a;
  return p;
}
// Calls another function: not plain arithmetic.
double scaled(double a) { return silu(a) * 1.5; }

void swiglu(double* out, const double* gate, const double* up, int n) {
  for (int i = 0; i < n; i++) out[i] = silu(gate[i]) * up[i];
}
// The argument's memory is overwritten after the call in the same iteration: taped.
void silu_then_overwrite(double* out, double* w, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = silu(w[i]) * w[i];
    w[i] = 2 * w[i] * w[i];
  }
}
void powers(double* out, const double* x, int n) {
  for (int i = 0; i < n; i++) out[i] = int_power(x[i], 3) * x[i];
}
void scaled_squares(double* out, const double* x, int n) {
  for (int i = 0; i < n; i++) out[i] = scaled(x[i]) * x[i];
}

int result_pops(const char* source) { return occurrences(source, "::adjoint::detail::pop<double>()"); }

TEST(CallResults, swiglu) {
  auto g = adjoint::gradient(swiglu);
  check("swiglu", g, swiglu, Out<double>{9}, In<double>{9, -3, 3}, In<double>{9}, 9);
  EXPECT_EQ(result_pops(g.source()), 0) << g.source();
}
TEST(CallResults, silu_then_overwrite) {
  auto g = adjoint::gradient(silu_then_overwrite);
  check("silu_then_overwrite", g, silu_then_overwrite, Out<double>{6}, InOut<double>{6, -2, 2}, 6);
  EXPECT_GT(result_pops(g.source()), 0) << g.source();
}
TEST(CallResults, powers) {
  auto g = adjoint::gradient(powers);
  check("powers", g, powers, Out<double>{6}, In<double>{6}, 6);
  EXPECT_GT(result_pops(g.source()), 0) << g.source();
}
TEST(CallResults, scaled_squares) {
  auto g = adjoint::gradient(scaled_squares);
  check("scaled_squares", g, scaled_squares, Out<double>{6}, In<double>{6}, 6);
  EXPECT_GT(result_pops(g.source()), 0) << g.source();
}

// SwiGLU's tape is empty at every size.
inline void swiglu_forward(double* out, const double* gate, const double* up, int n);
TEST(CallResults, swiglu_tapes_nothing) {
  for (int n : {3, 3000}) {
    std::vector<double> out(n), gate(n, 0.5), up(n, 0.25);
    const std::size_t before = adjoint::thread_tape_bytes();
    swiglu_forward(out.data(), gate.data(), up.data(), n);
    EXPECT_EQ(adjoint::thread_tape_bytes(), before) << n;
  }
}
