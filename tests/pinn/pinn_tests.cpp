// The PINN loss's gradient (adjc: reverse mode over the second derivatives of the network with
// respect to its input, on blocks of points) against central differences, the same on several
// threads, and a short run whose loss must fall.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <omp.h>

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

// The blocks run in parallel (OpenMP), each adding its share into the gradient: the same loss and
// gradient on one thread and on several, to rounding of the sums' order.
TEST(Pinn, ThreadsGiveTheSameGradient) {
  std::vector<double> w = pinn::initial_weights(kWidth, 5), one, several;
  omp_set_num_threads(1);
  const double l1 = gradient_of(w, one);
  omp_set_num_threads(3);
  const double l3 = gradient_of(w, several);
  omp_set_num_threads(1);
  EXPECT_NEAR(l1, l3, 1e-13 * l1);
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(one[i], several[i], 1e-12 * std::max(1.0, std::fabs(one[i])));
}

// The network's value at a point is the same whichever block (and block size) it is evaluated in.
TEST(Pinn, NetworkAtOnePointMatchesTheBoundaryTerm) {
  std::vector<double> w = pinn::initial_weights(kWidth, 9);
  double edge = 0;
  for (size_t p = 0; p < kBoundary.size() / 2; ++p) {
    const double u = pinn::network(w.data(), kWidth, kBoundary[2 * p], kBoundary[2 * p + 1]);
    edge += u * u;
  }
  const int n_interior = int(kInterior.size() / 2), n_boundary = int(kBoundary.size() / 2);
  const double with = pinn::loss(w.data(), kWidth, kInterior.data(), n_interior, kBoundary.data(), n_boundary, 1.0);
  const double without = pinn::loss(w.data(), kWidth, kInterior.data(), n_interior, kBoundary.data(), n_boundary, 0.0);
  EXPECT_NEAR(with - without, edge / n_boundary, 1e-12 * with);
}
