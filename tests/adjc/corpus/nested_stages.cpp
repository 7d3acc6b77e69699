// Corpus: a nested request whose later stage meets what an earlier stage generated, against closed
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

}  // namespace nested_stages
