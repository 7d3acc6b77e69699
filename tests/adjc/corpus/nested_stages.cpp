// Corpus: nested requests whose later stage meets what an earlier stage generated, against closed
// forms.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
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

}  // namespace nested_stages
