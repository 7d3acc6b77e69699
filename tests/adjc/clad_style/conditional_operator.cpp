// The conditional operator: both arms differentiable, nested, in loops.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double pick(double x, double y) { return x > y ? x * x : y * x; }
double nested(double x) { return x < 0 ? -x : (x < 1 ? x * x : 2 * x - 1); }
double relu_sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] > 0 ? x[i] * x[i] : 0.1 * x[i];
  return s;
}

int main() {
  double x = 0.8, y = 0.3, dx = 0, dy = 0;
  for (double xv : {0.8, 0.1}) {
    x = xv;
    dx = dy = 0;
    adjoint::gradient(pick).execute(x, y, &dx, &dy);
    expect_gradient("d pick / dx", dx, x, [&] { return pick(x, y); });
    expect_gradient("d pick / dy", dy, y, [&] { return pick(x, y); });
  }
  for (double xv : {-0.5, 0.5, 1.5}) {
    x = xv;
    dx = 0;
    adjoint::gradient(nested).execute(x, &dx);
    expect_gradient("d nested / dx", dx, x, [&] { return nested(x); });
  }
  double v[4] = {0.5, -1.2, 0.7, -0.1}, dv[4] = {};
  adjoint::gradient(relu_sum, "x").execute(v, 4, dv);
  for (int i = 0; i < 4; i++) expect_gradient("d relu_sum / dx[i]", dv[i], v[i], [&] { return relu_sum(v, 4); });
  return clad_style::report();
}
