// The PINN's initial weights (pinn.hpp): not differentiated, so outside pinn_model.cpp.
#include <cmath>
#include <random>

#include "pinn.hpp"

namespace pinn {

std::vector<double> initial_weights(int width, unsigned seed) {
  std::vector<double> w(size_t(parameter_count(width)), 0.0);
  std::mt19937 rng(seed);
  size_t o = 0;
  // Each layer's weights Glorot-uniform, then its biases (left zero).
  for (auto [in, out] : {std::pair{2, width}, {width, width}, {width, width}, {width, 1}}) {
    std::uniform_real_distribution<double> u(-1, 1);
    const double limit = std::sqrt(6.0 / (in + out));
    for (int k = 0; k < in * out; ++k) w[o + size_t(k)] = limit * u(rng);
    o += size_t(in * out + out);
  }
  return w;
}

}  // namespace pinn
