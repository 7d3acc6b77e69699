// OpenMP parallel loops: sums by reduction(+), private and firstprivate temporaries, a counter
// declared before the loop, loops counting down and in strides; each gradient checked with teams
// of 1, 2 and 3 threads (a reduction's per-thread parts differ only with more than one).
#include <adjoint/ad.hpp>
#include <omp.h>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;

double sum_of_squares(const double* x, int n) {
  double total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < n; i++) total += x[i] * x[i];
  return std::sqrt(total);
}
double weighted_total(const double* x, double w, int n) {
  double total = 0;
#pragma omp parallel for reduction(+ : total) shared(x) firstprivate(w)
  for (int i = 0; i < n; i++) total += w * std::sin(x[i]);
  return total * w;
}
double backwards_with_private(const double* x, int n) {
  double total = 0, y;
#pragma omp parallel for private(y) reduction(+ : total)
  for (int i = n - 1; i >= 0; i--) {
    y = x[i] * x[i];
    total -= y * x[(i + 1) % n];
  }
  return total;
}
double every_other(const double* x, int n) {
  int i;
  double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
  for (i = 0; i <= n - 1; i += 2) total += std::exp(x[i]) * x[i + 1];
  return total;
}
void scale_into(double* out, const double* x, double a, int n) {
#pragma omp parallel for default(shared) num_threads(2)
  for (int i = 0; i < n; i++) out[i] = a * x[i] * x[i];
}

int main() {
  double x[6] = {0.5, -0.2, 1.1, 0.9, -1, 1.5};
  for (int threads = 1; threads <= 3; threads++) {
    omp_set_num_threads(threads);
    std::printf("%d threads\n", threads);
    double dx[6] = {};
    adjoint::gradient(sum_of_squares, "x").execute(x, 6, dx);
    for (int i = 0; i < 6; i++)
      expect_gradient("d sum_of_squares / dx[i]", dx[i], x[i], [&] { return sum_of_squares(x, 6); });
    double w = 0.7, dw = 0, dxw[6] = {};
    adjoint::gradient(weighted_total, "x, w").execute(x, w, 6, dxw, &dw);
    for (int i = 0; i < 6; i++)
      expect_gradient("d weighted_total / dx[i]", dxw[i], x[i], [&] { return weighted_total(x, w, 6); });
    expect_gradient("d weighted_total / dw", dw, w, [&] { return weighted_total(x, w, 6); });
    double db[6] = {};
    adjoint::gradient(backwards_with_private, "x").execute(x, 6, db);
    for (int i = 0; i < 6; i++)
      expect_gradient("d backwards_with_private / dx[i]", db[i], x[i], [&] { return backwards_with_private(x, 6); });
    double de[6] = {};
    adjoint::gradient(every_other, "x").execute(x, 6, de);
    for (int i = 0; i < 6; i++)
      expect_gradient("d every_other / dx[i]", de[i], x[i], [&] { return every_other(x, 6); });
    // out's adjoint is all ones: the gradient of the sum of out.
    double out[6], dout[6] = {1, 1, 1, 1, 1, 1}, ds[6] = {}, a = 1.3, da = 0;
    adjoint::gradient(scale_into).execute(out, x, a, 6, dout, ds, &da);
    auto sum_out = [&] {
      scale_into(out, x, a, 6);
      double s = 0;
      for (double v : out) s += v;
      return s;
    };
    for (int i = 0; i < 6; i++) expect_gradient("d sum(scale_into) / dx[i]", ds[i], x[i], sum_out);
    expect_gradient("d sum(scale_into) / da", da, a, sum_out);
  }
  return clad_style::report();
}
