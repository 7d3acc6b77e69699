// Corpus: nested requests through the custom derivatives of a void function that writes memory
// (a layer's product, as examples/pinn's GEMM is). Its custom pushforward is written with calls of
// the function itself, so a later stage differentiates that body like user code (a second
// derivative: its pushforward; a gradient over a derivative: its pullback) and the calls in it reach
// the custom pushforward and pullback again. The pushforward adds its second product into the
// tangent the first wrote: the pullback leaves y unnamed, so no pullback reads what the second call
// overwrites. Against central differences.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <cmath>
#include <string>

namespace nested_custom {

// y = A x (+ a when `shift`), or added to y when `add`: A is 2 x 2 at m (row-major), a after it.
void affine(const double* m, const double* x, double* y, bool shift, bool add) {
  for (int i = 0; i < 2; ++i) y[i] = (add ? y[i] : 0) + (shift ? m[4 + i] : 0) + m[2 * i] * x[0] + m[2 * i + 1] * x[1];
}

}  // namespace nested_custom

namespace adjoint::custom_derivatives {

// y' = A x' + A' x + a' (the terms whose tangents vary; the others are nullptr).
void affine_pushforward(const double* m, const double* x, double* y, bool shift, bool add, const double* d_m,
                        const double* d_x, double* d_y) {
  nested_custom::affine(m, x, y, shift, add);
  if (d_x) {
    nested_custom::affine(m, d_x, d_y, false, add);
  } else if (!add) {
    d_y[0] = 0;
    d_y[1] = 0;
  }
  if (d_m) nested_custom::affine(d_m, x, d_y, shift, true);
}

// Not inlined: GCC's -Warray-bounds follows the nullptr a caller passes for a tangent that does not
// vary (d_m) into the reverse of the branch that tests it, which the recorded branch never takes.
[[gnu::noinline]] void affine_pullback(const double* m, const double* x, double* /*y*/, bool shift, bool add,
                                       double* d_m, double* d_x, double* d_y) {
  if (d_x)
    for (int j = 0; j < 2; ++j) d_x[j] += m[j] * d_y[0] + m[2 + j] * d_y[1];
  if (d_m)
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) d_m[2 * i + j] += d_y[i] * x[j];
      if (shift) d_m[4 + i] += d_y[i];
    }
  if (!add) {
    d_y[0] = 0;
    d_y[1] = 0;
  }
}

}  // namespace adjoint::custom_derivatives

namespace nested_custom {

// Two layers (m[0..6) and m[6..12)) with tanh between, then a nonlinear read-out.
double net(const double* m, const double* x) {
  double z[2], h[2], u[2];
  affine(m, x, z, true, false);
  for (int i = 0; i < 2; ++i) h[i] = std::tanh(z[i]);
  affine(m + 6, h, u, false, false);
  affine(m + 6, h, u, true, true);  // the same product again, and the shift: u = 2 A2 h + a2
  return u[0] * u[1] + std::sin(u[0]);
}

// vᵀ H v of net in x: forward over forward, the second stage differentiating affine_pushforward.
double curvature(const double* m, const double* x, double* v) {
  return adjoint::derivative<2>(net, "x").execute(m, x, v, v);
}

const double kM[12] = {0.7, -0.4, 0.3, 0.9, 0.1, -0.2, 0.5, 0.8, -0.6, 0.4, 0.05, 0.3};
const double kX[2] = {0.35, -0.6};

TEST(NestedCustom, SecondDerivativeMatchesDifferencesOfTheFirst) {
  double v[2] = {0.8, -0.3}, x[2] = {kX[0], kX[1]};
  auto slope = adjoint::derivative(net, "x");
  auto value = [&](double t) {
    double moved[2] = {x[0] + t * v[0], x[1] + t * v[1]};
    return net(kM, moved);
  };
  auto along = [&](double t) {
    double moved[2] = {x[0] + t * v[0], x[1] + t * v[1]};
    return slope.execute(kM, moved, v);
  };
  const double h = 1e-6, fd_slope = (value(h) - value(-h)) / (2 * h);
  EXPECT_NEAR(along(0), fd_slope, 1e-8);
  const double fd = (along(h) - along(-h)) / (2 * h);
  EXPECT_NEAR(curvature(kM, x, v), fd, 1e-7 * std::max(1.0, std::fabs(fd)));
  EXPECT_NE(std::string(adjoint::derivative<2>(net, "x").source()).find("affine_pushforward"), std::string::npos);
}

TEST(NestedCustom, GradientOverSecondDerivativeMatchesCentralDifferences) {
  double v[2] = {0.8, -0.3}, x[2] = {kX[0], kX[1]}, grad[12] = {};
  adjoint::gradient(curvature, "m").execute(kM, x, v, grad);
  const double h = 1e-6;
  for (int k = 0; k < 12; ++k) {
    double up[12], down[12];
    for (int i = 0; i < 12; ++i) up[i] = down[i] = kM[i];
    up[k] += h;
    down[k] -= h;
    const double fd = (curvature(up, x, v) - curvature(down, x, v)) / (2 * h);
    EXPECT_NEAR(grad[k], fd, 1e-7 * std::max(1.0, std::fabs(fd))) << "m[" << k << "]";
  }
}

}  // namespace nested_custom
