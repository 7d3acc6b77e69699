// Corpus: Hessians (adjoint::hessian, hessian_diagonal, hessian_vector): symmetric, equal to
// central differences of the gradient (double; h = 1e-6, |error| <= 1e-6 * max(1, |fd|)), the
// Hessian-vector product equal to H·v, and against PyTorch's torch.autograd.functional.hessian
// (values below, from /usr/bin/python3 with torch in float64).
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <algorithm>
#include <cmath>

namespace hessians {

double f(double x, double y) { return std::sin(x) * y * x + x * x * x * y * y; }
double chain(const double* a, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i) s += std::exp(a[i] * a[i + 1]) + a[i] * a[i] * a[i];
  return s;
}

void expect_close(double got, double want, const char* what) {
  EXPECT_LE(std::fabs(got - want), 1e-6 * std::max(1.0, std::fabs(want))) << what << ": " << got << " vs " << want;
}

TEST(AdjcHessians, ScalarsMatchDifferencesOfTheGradientAndPyTorch) {
  double h[4], diagonal[2];
  adjoint::hessian(f, "x, y").execute(0.7, 1.3, h);
  adjoint::hessian_diagonal(f, "x, y").execute(0.7, 1.3, diagonal);
  // torch.autograd.functional.hessian(f, (0.7, 1.3))
  const double torch[4] = {8.500351591553372, 5.001607218336832, 5.001607218336833, 0.6859999999999998};
  auto g = adjoint::gradient(f, "x, y");
  const double step = 1e-6, at[2] = {0.7, 1.3};
  for (int i = 0; i < 2; ++i) {
    double up[2] = {at[0], at[1]}, down[2] = {at[0], at[1]}, gu[2] = {}, gd[2] = {};
    up[i] += step;
    down[i] -= step;
    g.execute(up[0], up[1], &gu[0], &gu[1]);
    g.execute(down[0], down[1], &gd[0], &gd[1]);
    for (int j = 0; j < 2; ++j) {
      expect_close(h[i * 2 + j], (gu[j] - gd[j]) / (2 * step), "H against differences of the gradient");
      EXPECT_NEAR(h[i * 2 + j], torch[i * 2 + j], 1e-12 * std::fabs(torch[i * 2 + j]));
      EXPECT_NEAR(h[i * 2 + j], h[j * 2 + i], 1e-12 * std::fabs(h[i * 2 + j]));
    }
    EXPECT_NEAR(diagonal[i], h[i * 3], 1e-12 * std::fabs(h[i * 3]));
  }
}

TEST(AdjcHessians, ArrayRangeDiagonalAndVectorProduct) {
  double a[3] = {0.3, -0.5, 0.8}, h[9], diagonal[3];
  adjoint::hessian(chain, "a[0:3]").execute(a, 3, h);
  adjoint::hessian_diagonal(chain, "a[0:3]").execute(a, 3, diagonal);
  // torch.autograd.functional.hessian(chain, tensor([0.3, -0.5, 0.8]))
  const double torch[9] = {2.0151770, 0.7316018, 0, 0.7316018, -2.4935315, 0.4021920, 0, 0.4021920, 0.1675800};
  auto g = adjoint::gradient(chain, "a");
  for (int i = 0; i < 3; ++i) {
    double up[3] = {a[0], a[1], a[2]}, down[3] = {a[0], a[1], a[2]}, gu[3] = {}, gd[3] = {};
    up[i] += 1e-6;
    down[i] -= 1e-6;
    g.execute(up, 3, gu);
    g.execute(down, 3, gd);
    for (int j = 0; j < 3; ++j) {
      expect_close(h[i * 3 + j], (gu[j] - gd[j]) / 2e-6, "H against differences of the gradient");
      EXPECT_NEAR(h[i * 3 + j], torch[i * 3 + j], 1e-6);
      EXPECT_EQ(h[i * 3 + j], h[j * 3 + i]);
    }
    EXPECT_NEAR(diagonal[i], h[i * 4], 1e-12 * std::max(1.0, std::fabs(h[i * 4])));
  }
  // The product adds H·v to hv.
  double v[3] = {1, 2, 3}, hv[3] = {0, 0, 0};
  adjoint::hessian_vector(chain, "a").execute(a, 3, v, hv);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(hv[i], h[i * 3] * v[0] + h[i * 3 + 1] * v[1] + h[i * 3 + 2] * v[2], 1e-12 * (1 + std::fabs(hv[i])));
}

}  // namespace hessians
