#pragma once
// A small PINN problem for the tests: width 3; more points than a block (pinn::kBlock) on both
// kinds, so that several blocks (three interior of 68 or 69 points, two boundary of 51 and 52) and
// the parallel loop over them are run.
#include <cmath>
#include <vector>

#include "pinn.hpp"

namespace pinn_test {

inline constexpr int kWidth = 3;
inline constexpr double kBoundaryWeight = 10;

// n points (x, y pairs) spread over the unit square, or over its edges when `on_edges`.
inline std::vector<double> spread_points(int n, bool on_edges) {
  std::vector<double> points;
  for (int p = 0; p < n; ++p) {
    const double t = std::fmod(0.618034 * (p + 1), 1.0), s = std::fmod(0.754878 * (p + 1), 1.0);
    if (!on_edges) points.insert(points.end(), {t, s});
    else if (p % 4 == 0) points.insert(points.end(), {t, 0.0});
    else if (p % 4 == 1) points.insert(points.end(), {1.0, t});
    else if (p % 4 == 2) points.insert(points.end(), {t, 1.0});
    else points.insert(points.end(), {0.0, t});
  }
  return points;
}

inline const std::vector<double> kInterior = spread_points(2 * pinn::kBlock + 5, false);
inline const std::vector<double> kBoundary = spread_points(pinn::kBlock + 3, true);

inline double loss_of(const std::vector<double>& w) {
  return pinn::loss(w.data(), kWidth, kInterior.data(), int(kInterior.size() / 2), kBoundary.data(),
                    int(kBoundary.size() / 2), kBoundaryWeight);
}
inline double gradient_of(const std::vector<double>& w, std::vector<double>& grad) {
  grad.assign(w.size(), 0.0);
  return pinn::loss_and_gradient(w.data(), kWidth, kInterior.data(), int(kInterior.size() / 2), kBoundary.data(),
                                 int(kBoundary.size() / 2), kBoundaryWeight, grad.data());
}

}  // namespace pinn_test
