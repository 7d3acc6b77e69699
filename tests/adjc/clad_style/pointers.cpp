// Pointer parameters: arrays, pointer arithmetic, dereference, outputs written through pointers.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double deref(const double* p, double* q) { return *p * *(p + 1) + p[2] * *q; }
void normalize(double* out, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  for (int i = 0; i < n; i++) out[i] = x[i] / (s + 1);
}
double walk(const double* x, int n) {
  const double* p = x;
  double s = 0;
  for (int i = 0; i < n; i++) {
    s = s * 0.5 + *p;
    p = p + 1;
  }
  return s * s;
}

int main() {
  double p[3] = {0.5, 1.5, -0.7}, q = 2, dp[3] = {}, dq = 0;
  adjoint::gradient(deref).execute(p, &q, dp, &dq);
  for (int i = 0; i < 3; i++) expect_gradient("d deref / dp[i]", dp[i], p[i], [&] { return deref(p, &q); });
  expect_gradient("d deref / dq", dq, q, [&] { return deref(p, &q); });
  // out = normalize(x); J = sum(c * out): the seed c goes in d_out.
  double x[3] = {0.3, -0.8, 1.2}, out[3], c[3] = {1, -2, 0.5}, dout[3], dx[3] = {};
  for (int i = 0; i < 3; i++) dout[i] = c[i];
  adjoint::gradient(normalize, "out, x").execute(out, x, 3, dout, dx);
  auto j = [&] {
    double o[3];
    normalize(o, x, 3);
    return c[0] * o[0] + c[1] * o[1] + c[2] * o[2];
  };
  for (int i = 0; i < 3; i++) expect_gradient("d normalize / dx[i]", dx[i], x[i], j);
  double dw[3] = {};
  adjoint::gradient(walk, "x").execute(x, 3, dw);
  for (int i = 0; i < 3; i++) expect_gradient("d walk / dx[i]", dw[i], x[i], [&] { return walk(x, 3); });
  return clad_style::report();
}
