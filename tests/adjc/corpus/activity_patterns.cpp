// Corpus: reverse sweeps planned for the requested parameters only. A function's reverse for an
// activity pattern (some adjoints ::adjoint::inactive) keeps and tapes only what the active
// adjoints need: here the local row y is read in the reverse only for c's adjoint. Each gradient
// against central differences (double; h = 1e-6, |error| <= 1e-6 * max(1, |fd|)), the same
// function requested for several patterns in one unit, through a caller, and inside a
// Hessian-vector product.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <algorithm>
#include <cmath>

namespace activity_patterns {

constexpr int kRow = 8;

void bend(const double* x, double* y, int n) {
  for (int i = 0; i < n; i++) y[i] = x[i] * x[i] + std::sin(x[i]);
}

double weighted(const double* x, const double* c, int n) {
  double y[kRow];
  bend(x, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

// weighted called with x's adjoint and c's inactive, then the other way round.
double product(const double* x, const double* c, int n) { return weighted(x, c, n) * std::cos(weighted(c, c, n)); }

const double x0[kRow] = {0.3, -0.7, 1.1, 0.2, -0.4, 0.9, -1.3, 0.5};
const double c0[kRow] = {1.2, -0.3, 0.8, 0.5, -1.1, 0.4, 0.7, -0.6};

template <class F>
void expect_gradient(F f, const double* x, const double* c, const double* grad, bool of_x, const char* what) {
  for (int i = 0; i < kRow; i++) {
    double up[kRow], down[kRow];
    std::copy(of_x ? x : c, (of_x ? x : c) + kRow, up);
    std::copy(of_x ? x : c, (of_x ? x : c) + kRow, down);
    up[i] += 1e-6;
    down[i] -= 1e-6;
    const double fd = of_x ? (f(up, c) - f(down, c)) / 2e-6 : (f(x, up) - f(x, down)) / 2e-6;
    EXPECT_LE(std::fabs(grad[i] - fd), 1e-6 * std::max(1.0, std::fabs(fd))) << what << " element " << i;
  }
}

TEST(AdjcActivityPatterns, EachPatternMatchesDifferences) {
  auto w = [](const double* x, const double* c) { return weighted(x, c, kRow); };
  double dx[kRow] = {}, dc[kRow] = {}, only_x[kRow] = {}, only_c[kRow] = {};
  adjoint::gradient(weighted).execute(x0, c0, kRow, dx, dc);
  adjoint::gradient(weighted, "x").execute(x0, c0, kRow, only_x);
  adjoint::gradient(weighted, "c").execute(x0, c0, kRow, only_c);
  expect_gradient(w, x0, c0, dx, true, "both, x");
  expect_gradient(w, x0, c0, dc, false, "both, c");
  expect_gradient(w, x0, c0, only_x, true, "x alone");
  expect_gradient(w, x0, c0, only_c, false, "c alone");
}

TEST(AdjcActivityPatterns, CallerPassesPatternsToItsCallee) {
  auto p = [](const double* x, const double* c) { return product(x, c, kRow); };
  double dx[kRow] = {}, dc[kRow] = {};
  adjoint::gradient(product, "x").execute(x0, c0, kRow, dx);
  adjoint::gradient(product, "c").execute(x0, c0, kRow, dc);
  expect_gradient(p, x0, c0, dx, true, "product, x");
  expect_gradient(p, x0, c0, dc, false, "product, c");
}

TEST(AdjcActivityPatterns, HessianVectorProductMatchesDifferencesOfTheGradient) {
  double v[kRow] = {0.5, 1, -1, 2, 0.25, -0.5, 1.5, -2};
  double hv[kRow] = {};
  adjoint::hessian_vector(weighted, "x").execute(x0, c0, kRow, v, hv);
  auto g = adjoint::gradient(weighted, "x");
  double up[kRow], down[kRow], gu[kRow] = {}, gd[kRow] = {};
  for (int i = 0; i < kRow; i++) up[i] = x0[i] + 1e-6 * v[i], down[i] = x0[i] - 1e-6 * v[i];
  g.execute(up, c0, kRow, gu);
  g.execute(down, c0, kRow, gd);
  for (int i = 0; i < kRow; i++) {
    const double fd = (gu[i] - gd[i]) / 2e-6;
    EXPECT_LE(std::fabs(hv[i] - fd), 1e-6 * std::max(1.0, std::fabs(fd))) << "element " << i;
  }
}

}  // namespace activity_patterns
