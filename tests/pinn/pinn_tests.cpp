// The PINN loss's gradient (adjc: reverse mode over the second derivatives of the network with
// respect to its input) against central differences, and a short run whose loss must fall.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "small_problem.hpp"

using namespace pinn_test;

TEST(Pinn, LossGradientMatchesCentralDifferences) {
  std::vector<double> w = pinn::initial_weights(kWidth, 7), grad;
  for (size_t i = 0; i < w.size(); ++i) w[i] += 0.05 * std::sin(3.0 * double(i));  // nonzero biases too
  const double l = gradient_of(w, grad);
  EXPECT_NEAR(l, loss_of(w), 1e-12 * l);
  // h = 1e-5 on a loss of fourth derivatives of tanh: |error| <= 1e-6 * max(1, |fd|).
  const double h = 1e-5;
  for (size_t i = 0; i < w.size(); ++i) {
    std::vector<double> up = w, down = w;
    up[i] += h;
    down[i] -= h;
    const double fd = (loss_of(up) - loss_of(down)) / (2 * h);
    EXPECT_NEAR(grad[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "weight " << i;
  }
}

TEST(Pinn, ShortRunLowersTheLoss) {
  std::vector<double> w = pinn::initial_weights(kWidth, 3), grad;
  const double first = gradient_of(w, grad);
  double last = first;
  for (int step = 0; step < 200; ++step) {
    last = gradient_of(w, grad);
    for (size_t i = 0; i < w.size(); ++i) w[i] -= 2e-3 * grad[i] / (1 + std::fabs(grad[i]));
  }
  EXPECT_LT(last, 0.5 * first) << "the loss went from " << first << " to " << last;
}
