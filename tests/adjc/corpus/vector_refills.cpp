// Corpus: a local std::vector re-initialised in differentiated code — resize(n), resize(n, c),
// assign(n, c), clear(), and resize and assign with values that carry derivatives — before,
// between and inside loops, with elements the reverse still reads dropped or overwritten by the
// call (the forward tapes the vector whole before each one).
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

// Sized after the declaration, then grown with zeros and shrunk back.
double resized(const double* x, int n) {
  std::vector<double> v;
  v.resize(n);
  for (int i = 0; i < n; i++) v[i] = x[i] * x[i];
  v.resize(2 * n);  // the new half is zero
  for (int i = n; i < 2 * n; i++) v[i] += std::sin(v[i - n]);
  double s = 0;
  for (int i = 0; i < 2 * n; i++) s += v[i] * v[i];
  v.resize(1);  // drops every element the sum above read but the first
  s += v[0] * x[n - 1];
  return s;
}

// One scratch row per iteration, refilled with a constant: each row's squares are read in the
// reverse after the next iteration's assign has overwritten them.
double rows(const double* x, int n, int m) {
  std::vector<double> row;
  double total = 0;
  for (int r = 0; r < m; r++) {
    row.assign(n, 1.0);
    for (int i = 0; i < n; i++) row[i] *= x[r * n + i];
    for (int i = 0; i < n; i++) total += row[i] * row[i] * row[(i + 1) % n];
  }
  return total;
}

// clear() then push_back: the elements pushed before are dropped, and their indices reused.
double cleared(const double* x, int n) {
  std::vector<double> acc;
  double s = 0;
  for (int k = 0; k < 3; k++) {
    acc.clear();
    for (int i = 0; i < n; i++) acc.push_back(std::exp(x[i] * (k + 1)));
    for (int i = 0; i < n; i++) s += acc[i] * x[(i + k) % n];
  }
  return s + acc[0];
}

// resize(n, c) growing a vector filled by push_back, the fill carrying no derivative.
float resize_fill(const float* x, int n) {
  std::vector<float> v;
  for (int i = 0; i < n; i++) v.push_back(x[i] * 2.0f);
  v.resize(n + 2, 0.5f);
  float p = 0;
  for (int i = 0; i < n + 2; i++) p += v[i] * v[(i + 1) % (n + 2)];
  return p;
}

// An inactive vector (constants only) resized between reads: no adjoint, only the tape.
double inactive(const double* x, int n) {
  std::vector<double> w(n, 2.0);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * x[i];
  w.resize(n + 1, 3.0);
  for (int i = 0; i < n; i++) s += w[i + 1] * x[i] * x[i];
  return s;
}

// Follows vector_resize's hint: the caller sizes the output, the function assigns its elements.
void hint_resize_param(const double* x, int n, std::vector<double>& out) {
  for (int i = 0; i < n; i++) out[i] = x[i] * x[i];
}
// Fill values that carry derivatives: assign(n, x) refills every element with x, resize(n, x)
// those past the old size (none when it shrinks), each read before the next refill overwrites it.
double variable_fills(const double* x, int n) {
  std::vector<double> row;
  double s = 0;
  for (int r = 0; r < 3; r++) {
    row.assign(n, x[r] * x[r]);
    for (int i = 0; i < n; i++) row[i] += x[i] * (r + 1);
    for (int i = 0; i < n; i++) s += row[i] * row[(i + 1) % n];
    row.resize(n + r + 1, std::sin(s));
    s += row[n + r] * x[0] + row[n] * x[1];
    row.resize(n - 1, s);
    s += row[n - 2] * row[0];
  }
  return s;
}
float variable_fill_f(const float* x, int n) {
  std::vector<float> v;
  v.assign(n, x[0]);
  float s = 0;
  for (int i = 0; i < n; i++) s += v[i] * x[i];
  v.assign(n + 1, s * 0.5f);
  for (float e : v) s += e * e;
  return s;
}

TEST(VectorRefills, resize_grow_and_shrink) {
  check("resized", adjoint::gradient(resized, "x"), resized, In<double>{4}, 4);
}
TEST(VectorRefills, assign_in_loop) {
  check("rows", adjoint::gradient(rows, "x"), rows, In<double>{12}, 4, 3);
}
TEST(VectorRefills, clear_then_push_back) {
  check("cleared", adjoint::gradient(cleared, "x"), cleared, In<double>{5}, 5);
}
TEST(VectorRefills, resize_with_fill_value) {
  check("resize_fill", adjoint::gradient(resize_fill, "x"), resize_fill, In<float>{4}, 4);
}
TEST(VectorRefills, inactive_vector) {
  check("inactive", adjoint::gradient(inactive, "x"), inactive, In<double>{4}, 4);
}
TEST(VectorRefills, fill_values_with_derivatives) {
  check("variable_fills", adjoint::gradient(variable_fills, "x"), variable_fills, In<double>{4}, 4);
  check("variable_fill_f", adjoint::gradient(variable_fill_f, "x"), variable_fill_f, In<float>{3}, 3);
}
TEST(VectorRefills, hints_followed) {
  const double x[3] = {0.5, -1.25, 2.0};
  std::vector<double> out(3), d_out = {1.0, -2.0, 0.5};
  double d_x[3] = {};
  adjoint::gradient(hint_resize_param, "x, out").execute(x, 3, out, d_x, &d_out);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(d_x[i], 2 * x[i] * (i == 0 ? 1.0 : i == 1 ? -2.0 : 0.5), 1e-12);
}
