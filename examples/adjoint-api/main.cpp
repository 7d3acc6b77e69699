// The gradient of the Rosenbrock function of n variables, from adjoint::gradient, checked against
// central finite differences (exit status 1 on a mismatch).
#include <adjoint/ad.hpp>

#include <cmath>
#include <cstdio>

double rosenbrock(const double* x, int n) {
  double sum = 0;
  for (int i = 0; i + 1 < n; ++i) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    sum += 100 * a * a + b * b;
  }
  return sum;
}

int main() {
  constexpr int n = 4;
  double x[n] = {-1.2, 1.0, 0.5, 0.8}, d_x[n] = {};
  auto g = adjoint::gradient(rosenbrock, "x");
  g.execute(x, n, d_x);
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    const double h = 1e-6, saved = x[i];
    x[i] = saved + h;
    const double up = rosenbrock(x, n);
    x[i] = saved - h;
    const double down = rosenbrock(x, n);
    x[i] = saved;
    const double fd = (up - down) / (2 * h);
    const bool ok = std::fabs(d_x[i] - fd) <= 1e-5 * std::fmax(1.0, std::fabs(fd));
    std::printf("d/dx[%d] = %.6f (finite differences %.6f)%s\n", i, d_x[i], fd, ok ? "" : "  MISMATCH");
    mismatches += !ok;
  }
  return mismatches != 0;
}
