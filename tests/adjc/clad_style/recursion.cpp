// Recursive functions: linear recursion with an early return, a divide-and-conquer sum, and
// recursions passing on a non-const pointer they only read (Clad's RecursiveFunctionEarlyReturn.C).
#include <adjoint/ad.hpp>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;

double ipow(double x, int n) {
  if (n <= 0) return 1;
  if (n % 2 == 0) {
    double h = ipow(x, n / 2);
    return h * h;
  }
  return x * ipow(x, n - 1);
}
double halves(const double* x, int lo, int hi) {
  if (hi - lo == 1) return x[lo] * x[lo];
  int mid = (lo + hi) / 2;
  return halves(x, lo, mid) + halves(x, mid, hi) * x[lo];
}
// `A` is not const, but no call of the recursion writes through it.
double product_rows(double* A, int n) {
  if (n <= 1) return A[0] * A[0];
  double res = 0;
  for (int i = 0; i < n; i++) res += A[i] * product_rows(A, n - 1);
  return res;
}
// Mutual recursion passing the pointer on, shifted.
double walk_on(double* y, int n);
double step_on(double* y, int n) { return n <= 0 ? y[0] : std::sin(y[0]) * walk_on(y + 1, n - 1); }
double walk_on(double* y, int n) { return n <= 0 ? y[0] : y[0] * step_on(y, n - 1); }

int main() {
  double x = 1.15;
  for (int n : {0, 1, 5, 8}) {
    double dx = 0;
    adjoint::gradient(ipow, "x").execute(x, n, &dx);
    expect_gradient("d ipow / dx", dx, x, [&] { return ipow(x, n); });
  }
  double v[5] = {0.5, -1, 0.25, 2, 0.75}, dv[5] = {};
  adjoint::gradient(halves, "x").execute(v, 0, 5, dv);
  for (int i = 0; i < 5; i++) expect_gradient("d halves / dx[i]", dv[i], v[i], [&] { return halves(v, 0, 5); });
  double A[3] = {1, 2, 0.5}, dA[3] = {};
  adjoint::gradient(product_rows, "A").execute(A, 3, dA);
  for (int i = 0; i < 3; i++) expect_gradient("d product_rows / dA[i]", dA[i], A[i], [&] { return product_rows(A, 3); });
  double y[4] = {0.3, 0.7, -0.2, 0.4}, dy[4] = {};
  adjoint::gradient(walk_on, "y").execute(y, 5, dy);
  for (int i = 0; i < 4; i++) expect_gradient("d walk_on / dy[i]", dy[i], y[i], [&] { return walk_on(y, 5); });
  return clad_style::report();
}
