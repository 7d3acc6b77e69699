// Integer and bool parameters, counters and flags, calls whose results carry no derivative.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
bool is_positive(double v) { return v > 0; }
double gather(const double* x, int n, int shift, bool square) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    int k = clamp_index(i + shift, n);
    double v = x[k];
    if (square && is_positive(v)) v = v * v;
    s += v * (i + 1);
  }
  return s;
}

int main() {
  double x[4] = {0.5, -0.3, 1.2, 0.8};
  for (bool square : {false, true}) {
    double dx[4] = {};
    adjoint::gradient(gather, "x").execute(x, 4, 1, square, dx);
    for (int i = 0; i < 4; i++) expect_gradient("d gather / dx[i]", dx[i], x[i], [&] { return gather(x, 4, 1, square); });
  }
  return clad_style::report();
}
