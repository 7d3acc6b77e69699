#pragma once
// A tiny PINN problem for the tests: width 3, a few fixed points.
#include <vector>

#include "pinn.hpp"

namespace pinn_test {

inline constexpr int kWidth = 3;
inline const std::vector<double> kInterior = {0.2, 0.3, 0.7, 0.6, 0.45, 0.85, 0.9, 0.15, 0.5, 0.5};
inline const std::vector<double> kBoundary = {0.0, 0.4, 1.0, 0.7, 0.3, 0.0, 0.8, 1.0};
inline constexpr double kBoundaryWeight = 10;

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
