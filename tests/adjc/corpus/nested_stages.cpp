// Corpus: nested requests whose later stage meets what an earlier stage generated, against closed
// forms or central differences of the gradient (h = 1e-6, |error| <= 1e-6 * max(1, |fd|)).
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <algorithm>
#include <cmath>

namespace nested_stages {

double f(double x, double y) { return std::sin(x) * y; }
// f called directly and through its derivative: the gradient of g (a second stage) needs f's
// reverse sweep, which the gradient of f (the first stage) generated; it is called, not defined again.
double g(double x, double y) { return f(x, y) * adjoint::derivative(f, "x").execute(x, y); }

TEST(NestedStages, ReverseSweepOfAnEarlierStageShared) {
  double dx = 0, dy = 0, gx = 0, gy = 0;
  adjoint::gradient(f).execute(0.3, 0.7, &dx, &dy);
  adjoint::gradient(g).execute(0.3, 0.7, &gx, &gy);
  EXPECT_NEAR(dx, std::cos(0.3) * 0.7, 1e-14);
  EXPECT_NEAR(dy, std::sin(0.3), 1e-14);
  // g = sin(x) cos(x) y^2 = sin(2x) y^2 / 2
  EXPECT_NEAR(gx, std::cos(0.6) * 0.49, 1e-13);
  EXPECT_NEAR(gy, std::sin(0.6) * 0.7, 1e-13);
}

// A lambda called with a pointer argument: the first stage's pushforward calls it where it is written,
// `([](...) {...})(x + 1, ...)`, which the second stage of derivative<2> prints again with both
// arguments (it lost the first: output that did not compile).
double scaled_by_lambda(const double* x, double t) {
  auto lam = [](const double* p, double a) { return a * p[0]; };
  return t * t * lam(x + 1, std::acos(0.5 * x[0]));
}

TEST(NestedStages, LambdaCalledWhereAnEarlierStageWroteIt) {
  double x[2] = {0.3, 0.7};
  EXPECT_NEAR(adjoint::derivative<2>(scaled_by_lambda, "t").execute(x, 0.4), 2 * std::acos(0.15) * 0.7, 1e-12);
}

// A function object called with arguments the Hessian's first derivative (in c) leaves constant:
// the second stage's reverse sweep of that pushforward calls the object's own forward sweep, which
// the gradient (the first stage) generated beside the struct; it was defined again ("redefinition
// of operator_call_forward", fuzz seed 211).
struct SineScaled {
  double k;
  double operator()(double a, double b) const { return k * std::sin(a) * b; }
};
double scaled_by_functor(const double* x, const double* c) {
  SineScaled s{0.5};
  return std::sin(s(x[0], x[1]) * c[0]) * c[1];
}

TEST(NestedStages, FunctionObjectSweepOfAnEarlierStageShared) {
  const double x[2] = {0.3, 0.7}, c[2] = {0.4, 0.9};
  double h[4];
  adjoint::hessian(scaled_by_functor, "c[0:2]").execute(x, c, h);
  auto g = adjoint::gradient(scaled_by_functor);
  const double step = 1e-6;
  for (int i = 0; i < 2; ++i) {
    double up[2] = {c[0], c[1]}, down[2] = {c[0], c[1]}, gx[2] = {}, gu[2] = {}, gd[2] = {};
    up[i] += step;
    down[i] -= step;
    g.execute(x, up, gx, gu);
    g.execute(x, down, gx, gd);
    for (int j = 0; j < 2; ++j) {
      const double fd = (gu[j] - gd[j]) / (2 * step);
      EXPECT_NEAR(h[i * 2 + j], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "H[" << i << "][" << j << "]";
    }
  }
}

}  // namespace nested_stages
