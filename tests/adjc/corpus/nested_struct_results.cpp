// Corpus: higher derivatives of a function returning a struct (each member's derivative), along a
// whole array, and a gradient over them, against closed forms and central differences. This is the
// PINN's form (docs/pinn.md): per-point outputs of a block, their second derivatives along all the
// points' x at once, and a loss of them whose reverse sweep is the weight gradient.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <cmath>

#include "gradcheck.hpp"

// At file scope: the derivatives' declarations adjc inserts before the namespace name it
// (docs/adjc.md, "Known limits").
constexpr int kPoints = 3;
struct PerPoint {
  double v[kPoints];
};

namespace nested_struct_results {

// v_p = w0 · sin(w1 · x_p) · x_p²: v_p depends on x_p only.
PerPoint outputs(const double* w, const double* x, int n) {
  PerPoint out{};
  for (int p = 0; p < n; ++p) out.v[p] = w[0] * std::sin(w[1] * x[p]) * x[p] * x[p];
  return out;
}

// d²v_p/dx_p² in closed form.
double second(const double* w, double x) {
  const double s = std::sin(w[1] * x), c = std::cos(w[1] * x);
  return w[0] * (-w[1] * w[1] * s * x * x + 4 * w[1] * c * x + 2 * s);
}

// Σ_p (d²v_p/dx_p² - t_p)², the second derivatives along (1, 1, 1) at once, written to d2.
double misfit(const double* w, const double* x, int n, const double* t, double* d2) {
  double along[kPoints];
  for (int p = 0; p < n; ++p) along[p] = 1;
  const PerPoint second = adjoint::derivative<2>(outputs, "x").execute(w, x, n, along, along);
  double total = 0;
  for (int p = 0; p < n; ++p) {
    d2[p] = second.v[p];
    total += (second.v[p] - t[p]) * (second.v[p] - t[p]);
  }
  return total;
}

TEST(NestedStructResults, SecondDerivativeOfEachMember) {
  const double w[2] = {0.7, 1.3}, x[kPoints] = {0.2, -0.5, 0.9};
  double along[kPoints] = {1, 1, 1};
  const PerPoint d2 = adjoint::derivative<2>(outputs, "x").execute(w, x, kPoints, along, along);
  for (int p = 0; p < kPoints; ++p) EXPECT_NEAR(d2.v[p], second(w, x[p]), 1e-13) << "point " << p;
  // Along one point's direction only, the others' members are 0.
  double only_second[kPoints] = {0, 1, 0};
  const PerPoint one = adjoint::derivative<2>(outputs, "x").execute(w, x, kPoints, only_second, only_second);
  EXPECT_EQ(one.v[0], 0.0);
  EXPECT_NEAR(one.v[1], second(w, x[1]), 1e-13);
  EXPECT_EQ(one.v[2], 0.0);
}

TEST(NestedStructResults, FirstDerivativeOfEachMember) {
  const double w[2] = {0.7, 1.3}, x[kPoints] = {0.2, -0.5, 0.9};
  double along[kPoints] = {1, 1, 1};
  const PerPoint d1 = adjoint::derivative(outputs, "x").execute(w, x, kPoints, along);
  for (int p = 0; p < kPoints; ++p) {
    const double h = 1e-6;
    double plus[kPoints] = {x[0], x[1], x[2]}, minus[kPoints] = {x[0], x[1], x[2]};
    plus[p] += h;
    minus[p] -= h;
    const double fd = (outputs(w, plus, kPoints).v[p] - outputs(w, minus, kPoints).v[p]) / (2 * h);
    EXPECT_NEAR(d1.v[p], fd, 1e-8) << "point " << p;
  }
}

TEST(NestedStructResults, GradientOverSecondDerivativesMatchesCentralDifferences) {
  const double t[kPoints] = {0.1, -0.4, 0.3};
  auto g = adjoint::gradient(misfit, "w, x, d2");
  gradcheck::check("misfit", g, misfit, gradcheck::In<double>{2}, gradcheck::In<double>{kPoints}, kPoints,
                   gradcheck::Const<double>{kPoints}, gradcheck::Out<double>{kPoints});
  // The values written come from the same sweep: the closed form.
  const double w[2] = {0.7, 1.3}, x[kPoints] = {0.2, -0.5, 0.9};
  double d2[kPoints], d_w[2] = {}, d_x[kPoints] = {}, d_d2[kPoints] = {};
  g.execute(w, x, kPoints, t, d2, d_w, d_x, d_d2);
  for (int p = 0; p < kPoints; ++p) EXPECT_NEAR(d2[p], second(w, x[p]), 1e-13) << "point " << p;
}

// A struct with an array member of more than 64 numbers, returned and copied whole (adjc copies it in
// a loop), under a gradient.
constexpr int kWide = 80;
struct Wide {
  double v[kWide];
};

Wide squares(const double* x, double a) {
  Wide out;
  for (int i = 0; i < kWide; ++i) out.v[i] = a * x[i] * x[i];
  return out;
}

double weighted_squares(const double* x, double a) {
  const Wide first = squares(x, a);
  Wide copy = first;
  double total = 0;
  for (int i = 0; i < kWide; ++i) total += copy.v[i] * x[i];
  return total;
}

TEST(NestedStructResults, LongArrayMemberCopiedUnderAGradient) {
  auto g = adjoint::gradient(weighted_squares, "x, a");
  gradcheck::check("weighted_squares", g, weighted_squares, gradcheck::In<double>{kWide}, gradcheck::Scalar<double>{});
  double x[kWide], d_x[kWide] = {}, d_a = 0;
  for (int i = 0; i < kWide; ++i) x[i] = 0.01 * (i + 1);
  g.execute(x, 2.0, d_x, &d_a);
  EXPECT_NEAR(d_x[kWide - 1], 3 * 2.0 * x[kWide - 1] * x[kWide - 1], 1e-13);  // d(a x³)/dx
}

}  // namespace nested_struct_results
