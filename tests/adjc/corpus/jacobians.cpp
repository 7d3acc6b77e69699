// Corpus: Jacobians (adjoint::jacobian). Each function's Jacobian by forward sweeps (one per column)
// equals the one by reverse sweeps (one per row) to 1e-12; the two satisfy the dot-product identity
// u.(J v) = (u^T J).v to 1e-12; each column equals central differences of the outputs (h = 1e-6,
// tolerance 1e-6 relative to max(1, |fd|)); execute leaves the outputs as the function computes them.
#include <adjoint/ad.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

namespace jacobians {

void cubes(double a, double b, double c, double* out) {
  out[0] = a * a * a;
  out[1] = a * a * a + b * b * b;
  out[2] = c * c * 10 - a * a;
}

double neighbour(const double* x, int i, int n) { return x[(i + 1) % n]; }
void ring(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = std::sin(x[i]) * neighbour(x, i, n) + std::exp(0.1 * x[i]);
}

// Several outputs (a vector and the result) and a std::vector input.
double squares_and_sum(const std::vector<double>& x, std::vector<double>& y) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = x[i] * x[i] * std::cos(x[i]);
    s += x[i];
  }
  return s * s;
}

// Two inputs of known length, one written through a callee.
void write_scaled(double* to, double s, const double* from, int n) {
  for (int i = 0; i < n; ++i) to[i] = s * from[i] * from[i];
}
void mix(const std::array<double, 3>& w, const double x[2], double scale, double out[4]) {
  write_scaled(out, scale, x, 2);
  out[2] = w[0] * x[0] + w[1] * x[1] + std::tanh(w[2]);
  out[3] = w[0] * w[1] * w[2] / (1 + x[0] * x[0]);
}

// An array updated in place: input and output at once.
void smooth(double* x, int n) {
  for (int i = 1; i < n; ++i) x[i] = 0.5 * (x[i] + x[i - 1] * x[i - 1]);
}

// The function as a map from all inputs (flattened) to all outputs (flattened).
using Map = std::function<std::vector<double>(const std::vector<double>&)>;

void expect_close(const adjoint::matrix<double>& a, const adjoint::matrix<double>& b, const char* what) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  for (size_t i = 0; i < a.rows(); ++i)
    for (size_t j = 0; j < a.cols(); ++j)
      EXPECT_NEAR(a(i, j), b(i, j), 1e-12 * std::max(1.0, std::fabs(a(i, j)))) << what << " at " << i << "," << j;
}

void expect_finite_differences(const adjoint::matrix<double>& J, const Map& f, std::vector<double> x) {
  const double h = 1e-6;
  for (size_t j = 0; j < x.size(); ++j) {
    std::vector<double> up = x, down = x;
    up[j] += h;
    down[j] -= h;
    std::vector<double> fu = f(up), fd = f(down);
    ASSERT_EQ(fu.size(), J.rows());
    for (size_t i = 0; i < J.rows(); ++i) {
      double d = (fu[i] - fd[i]) / (2 * h);
      EXPECT_NEAR(J(i, j), d, 1e-6 * std::max(1.0, std::fabs(d))) << "row " << i << ", column " << j;
    }
  }
}

// u.(J_forward v) == (u^T J_reverse).v for fixed pseudo-random u, v.
void expect_dot_product_identity(const adjoint::matrix<double>& forward, const adjoint::matrix<double>& reverse) {
  double left = 0, right = 0;
  for (size_t i = 0; i < forward.rows(); ++i)
    for (size_t j = 0; j < forward.cols(); ++j) {
      double u = std::sin(1.0 + 3.0 * double(i)), v = std::cos(2.0 + 5.0 * double(j));
      left += u * forward(i, j) * v;
      right += u * reverse(i, j) * v;
    }
  EXPECT_NEAR(left, right, 1e-12 * std::max(1.0, std::fabs(left)));
}

void expect_consistent(const adjoint::matrix<double>& forward, const adjoint::matrix<double>& reverse, const Map& f,
                       const std::vector<double>& x) {
  expect_close(forward, reverse, "forward vs reverse");
  expect_dot_product_identity(forward, reverse);
  expect_finite_differences(forward, f, x);
}

TEST(Jacobians, ScalarsIntoAnArray) {
  auto j = adjoint::jacobian(cubes);
  double out[3] = {};
  adjoint::matrix<double> F(3, 3), R(3, 3);
  j.execute_forward(1.0, 2.0, 3.0, out, F);
  j.execute_reverse(1.0, 2.0, 3.0, out, &R);
  const double expected[3][3] = {{3, 0, 0}, {3, 12, 0}, {-2, 0, 60}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(F[r][c], expected[r][c]);
  expect_consistent(F, R,
                    [](const std::vector<double>& v) {
                      std::vector<double> o(3);
                      cubes(v[0], v[1], v[2], o.data());
                      return o;
                    },
                    {1.0, 2.0, 3.0});
  EXPECT_EQ(out[2], 89);  // the outputs as cubes computes them
}

TEST(Jacobians, PointerLengthsFromTheMatrix) {
  auto j = adjoint::jacobian(ring, "x");
  double x[4] = {0.1, -0.7, 1.3, 0.4}, y[4] = {};
  adjoint::matrix<double> F(4, 4), R(4, 4);
  j.execute_forward(x, y, 4, F);
  j.execute_reverse(x, y, 4, R);
  expect_consistent(F, R,
                    [](const std::vector<double>& v) {
                      std::vector<double> o(4);
                      ring(v.data(), o.data(), 4);
                      return o;
                    },
                    {x, x + 4});
  double expected[4];
  ring(x, expected, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], expected[i]);
}

TEST(Jacobians, VectorsAndTheResult) {
  auto j = adjoint::jacobian(squares_and_sum, "x");
  std::vector<double> x = {0.5, -1.5, 2.0}, y(3);
  adjoint::matrix<double> F, R, chosen;
  j.execute_forward(x, y, F);  // an empty matrix is sized: 4 outputs (y, then the result) x 3 inputs
  j.execute_reverse(x, y, R);
  j.execute(x, y, chosen);  // fewer inputs than outputs: forward
  ASSERT_EQ(F.rows(), 4u);
  ASSERT_EQ(F.cols(), 3u);
  expect_close(F, chosen, "by shape");
  expect_consistent(
      F, R,
      [](const std::vector<double>& v) {
        std::vector<double> o(3);
        double s = squares_and_sum(v, o);
        o.push_back(s);
        return o;
      },
      x);
}

TEST(Jacobians, SeveralInputsOfKnownLength) {
  auto j = adjoint::jacobian(mix, "w, x");
  std::array<double, 3> w = {0.3, -1.1, 0.8};
  double x[2] = {1.2, -0.4}, out[4] = {};
  adjoint::matrix<double> F(4, 5), R(4, 5);
  j.execute_forward(w, x, 2.5, out, F);
  j.execute_reverse(w, x, 2.5, out, R);
  expect_consistent(F, R,
                    [](const std::vector<double>& v) {
                      std::array<double, 3> a = {v[0], v[1], v[2]};
                      double b[2] = {v[3], v[4]}, o[4];
                      mix(a, b, 2.5, o);
                      return std::vector<double>(o, o + 4);
                    },
                    {0.3, -1.1, 0.8, 1.2, -0.4});
  // Every length is known: a row-major array of 4 x 5 will do (fewer outputs than inputs: reverse).
  double raw[20];
  j.execute(w, x, 2.5, out, raw);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) EXPECT_EQ(raw[r * 5 + c], R[r][c]);
}

TEST(Jacobians, ArrayUpdatedInPlace) {
  auto j = adjoint::jacobian(smooth, "x");
  const std::vector<double> start = {0.9, -0.3, 0.6, 1.1};
  std::vector<double> x = start;
  adjoint::matrix<double> F(4, 4), R(4, 4);
  j.execute_forward(x.data(), 4, F);
  x = start;
  j.execute_reverse(x.data(), 4, R);
  expect_consistent(
      F, R,
      [](std::vector<double> v) {
        smooth(v.data(), 4);
        return v;
      },
      start);
}

TEST(JacobiansDeathTest, WrongMatrixShape) {
  auto j = adjoint::jacobian(mix, "w, x");
  std::array<double, 3> w = {};
  double x[2] = {}, out[4] = {};
  adjoint::matrix<double> J(4, 4);  // mix has 5 inputs
  EXPECT_DEATH(j.execute(w, x, 1.0, out, J), "adjoint::jacobian: the matrix's shape is not outputs x inputs");
}

TEST(JacobiansDeathTest, PointerWithoutMatrix) {
  auto j = adjoint::jacobian(ring, "x");
  double x[2] = {1, 2}, y[2] = {}, raw[4];
  EXPECT_DEATH(j.execute(x, y, 2, raw), "a pointer parameter's length is unknown");
}

// A float input into double outputs: vector-mode tangents of both element types meet.
void widen(float a, double b, double out[3]) {
  out[0] = a * a;
  out[1] = a * b;
  float c = a * float(b);
  out[2] = c > 0 ? c * b : a;
}

TEST(Jacobians, FloatInputIntoDoubleOutputs) {
  auto j = adjoint::jacobian(widen);
  double out[3] = {};
  adjoint::matrix<double> F(3, 2), R(3, 2);
  j.execute_forward(1.5f, 2.0, out, F);
  j.execute_reverse(1.5f, 2.0, out, R);
  // a = 1.5 and b = 2 are exact in float: the derivatives are too.
  const double expected[3][2] = {{3, 0}, {2, 1.5}, {4, 6}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ(F[r][c], expected[r][c]);
      EXPECT_EQ(R[r][c], expected[r][c]);
    }
}

}  // namespace jacobians
