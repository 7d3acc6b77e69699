// Recursive functions: linear recursion with an early return, and a divide-and-conquer sum.
#include <adjoint/ad.hpp>

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
  return clad_style::report();
}
