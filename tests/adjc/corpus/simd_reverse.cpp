// Corpus: vectorised reverse loops. A straight counted loop whose reverse iterations share nothing
// but sums into the adjoints of outer scalars it reads gets ADJOINT_SIMD(... reduction(+ : sums))
// on its reverse loop; every shape in which iterations share more (a running sum, a neighbour, a
// gathered or shared element, an outer scalar overwritten) keeps the sequential reverse. Each case is
// checked against finite differences with trip counts that leave a vector body and a remainder;
// the generated source shows which was chosen.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

// Layernorm without weights: a local of the iteration (d) and sums into the mean's and the scale's
// adjoints.
void normalise(double* y, const double* x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m = m / n;
  double v = 0;
  for (int i = 0; i < n; i++) {
    double d = x[i] - m;
    v += d * d;
  }
  double s = 1 / std::sqrt(v / n + 1e-5);
  for (int i = 0; i < n; i++) y[i] = (x[i] - m) * s;
}
// llm.c's softmax over rows: exponentials stored in y and normalised in place (the bulk save's
// pop_n is outside the reverse loop); sums into the maximum's and the sum's adjoints.
void softmax_rows(double* y, const double* x, int rows, int n) {
  for (int r = 0; r < rows; r++) {
    const double* xr = x + r * n;
    double* yr = y + r * n;
    double maxv = -1e4;
    for (int i = 0; i < n; i++)
      if (xr[i] > maxv) maxv = xr[i];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      yr[i] = std::exp(xr[i] - maxv);
      sum += yr[i];
    }
    for (int i = 0; i < n; i++) yr[i] = yr[i] / sum;
  }
}
// Counting down, and in steps of 2: the counter steps back by the loop's own step.
void scale_down(double* y, const double* x, const double* c, int n) {
  double a = std::sin(c[0]);
  for (int i = n - 1; i >= 0; i--) y[i] = a * x[i] * x[i];
}
void scale_even(double* y, const double* x, const double* c, int n) {
  double a = std::cos(c[0]);
  for (int i = 0; i < n; i += 2) y[i] = a * x[i];
}
// float, as the engine's kernels are.
void scale_float(float* y, const float* x, const float* c, int n) {
  float a = std::tanh(c[0]);
  float b = c[1] * c[1];
  for (int i = 0; i < n; i++) y[i] = a * x[i] + b;
}

// Shapes whose iterations share more than sums: sequential reverse.
// A running sum: acc is accumulated and read in the same loop.
void prefix_sum(double* y, const double* x, const double* c, int n) {
  double a = std::sin(c[0]);
  double acc = 0;
  for (int i = 0; i < n; i++) {
    acc += x[i];
    y[i] = acc + a;
  }
}
// A neighbour: iteration i's adjoint of x[i + 1] is iteration i + 1's too.
void neighbour(double* y, const double* x, const double* c, int n) {
  double a = std::sin(c[0]);
  for (int i = 0; i < n; i++) y[i] = x[i] * x[i + 1] * a;
}
// A gather: idx may repeat elements.
void gather(double* y, const double* x, const int* idx, const double* c, int n) {
  double a = std::sin(c[0]);
  for (int i = 0; i < n; i++) y[i] = x[idx[i]] * a;
}
// One element read by every iteration: its adjoint is a sum in memory.
void shared_element(double* y, const double* x, const double* w, int n) {
  double a = std::sin(w[1]);
  for (int i = 0; i < n; i++) y[i] = x[i] * w[0] * a;
}
// A scalar parameter: its adjoint is the caller's (*_d_alpha), not a local a reduction can name.
void scalar_parameter(double* y, const double* x, double alpha, int n) {
  double a = alpha * alpha;
  for (int i = 0; i < n; i++) y[i] = x[i] * a * alpha;
}
// An outer scalar overwritten in every iteration.
void last_value(double* y, const double* x, const double* c, int n) {
  double a = std::sin(c[0]);
  double last = 0;
  for (int i = 0; i < n; i++) {
    last = x[i] * a;
    y[i] = last * last;
  }
  y[0] += last;
}

int simd_loops(const char* source) { return occurrences(source, "ADJOINT_SIMD("); }

TEST(SimdReverse, normalise) {
  auto g = adjoint::gradient(normalise);
  check("normalise", g, normalise, Out<double>{37}, In<double>{37}, 37);
  check("normalise n=1", g, normalise, Out<double>{1}, In<double>{1}, 1);
  // The variance loop sums into d_m; the output loop into d_m and d_s.
  EXPECT_EQ(simd_loops(g.source()), 2) << g.source();
  EXPECT_EQ(occurrences(g.source(), "reduction(+ : _d_m, _d_s)"), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "[[maybe_unused]] double _d_d{};"), 2) << g.source();
}
TEST(SimdReverse, softmax_rows) {
  auto g = adjoint::gradient(softmax_rows);
  check("softmax_rows", g, softmax_rows, Out<double>{3 * 19}, In<double>{3 * 19, -3, 3}, 3, 19);
  EXPECT_EQ(occurrences(g.source(), "reduction(+ : _d_sum)"), 1) << g.source();
  EXPECT_EQ(occurrences(g.source(), "reduction(+ : _d_maxv)"), 1) << g.source();
}
TEST(SimdReverse, steps) {
  auto down = adjoint::gradient(scale_down);
  check("scale_down", down, scale_down, Out<double>{21}, In<double>{21}, In<double>{1}, 21);
  EXPECT_EQ(occurrences(down.source(), "ADJOINT_SIMD(linear(i : 1) reduction(+ : _d_a))"), 1) << down.source();
  auto even = adjoint::gradient(scale_even);
  check("scale_even", even, scale_even, Out<double>{21}, In<double>{21}, In<double>{1}, 21);
  EXPECT_EQ(occurrences(even.source(), "ADJOINT_SIMD(linear(i : -2) reduction(+ : _d_a))"), 1) << even.source();
}
TEST(SimdReverse, scale_float) {
  auto g = adjoint::gradient(scale_float);
  check("scale_float", g, scale_float, Out<float>{23}, In<float>{23}, In<float>{2}, 23);
  EXPECT_EQ(occurrences(g.source(), "reduction(+ : _d_a, _d_b)"), 1) << g.source();
}
// Only the sums active under the request are reductions; with none, no pragma.
TEST(SimdReverse, inactive_sums) {
  auto g = adjoint::gradient(scale_float, "y, x");
  check("scale_float x", g, scale_float, Out<float>{23}, In<float>{23}, Const<float>{2}, 23);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}

TEST(SimdReverse, prefix_sum) {
  auto g = adjoint::gradient(prefix_sum);
  check("prefix_sum", g, prefix_sum, Out<double>{17}, In<double>{17}, In<double>{1}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
TEST(SimdReverse, neighbour) {
  auto g = adjoint::gradient(neighbour);
  check("neighbour", g, neighbour, Out<double>{17}, In<double>{18}, In<double>{1}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
TEST(SimdReverse, gather) {
  auto g = adjoint::gradient(gather, "y, x, c");
  std::vector<int> idx = {0, 1, 1, 2, 0, 3, 3, 3, 1, 2, 0, 0, 2, 3, 1, 1, 0};
  check("gather", g, gather, Out<double>{17}, In<double>{4}, Fixed<const int*>{idx.data()}, In<double>{1}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
TEST(SimdReverse, shared_element) {
  auto g = adjoint::gradient(shared_element);
  check("shared_element", g, shared_element, Out<double>{17}, In<double>{17}, In<double>{2}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
TEST(SimdReverse, scalar_parameter) {
  auto g = adjoint::gradient(scalar_parameter);
  check("scalar_parameter", g, scalar_parameter, Out<double>{17}, In<double>{17}, Scalar<double>{}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
TEST(SimdReverse, last_value) {
  auto g = adjoint::gradient(last_value);
  check("last_value", g, last_value, InOut<double>{17}, In<double>{17}, In<double>{1}, 17);
  EXPECT_EQ(simd_loops(g.source()), 0) << g.source();
}
