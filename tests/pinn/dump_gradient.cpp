// Prints the tiny PINN problem (small_problem.hpp) and adjc's loss and gradient, one line each, for
// test_pytorch.py to recompute with PyTorch's double backward.
#include <cmath>
#include <cstdio>

#include "small_problem.hpp"

using namespace pinn_test;

namespace {

void line(const char* name, const std::vector<double>& v) {
  std::printf("%s", name);
  for (double x : v) std::printf(" %.17g", x);
  std::printf("\n");
}

}  // namespace

int main() {
  std::vector<double> w = pinn::initial_weights(kWidth, 11), grad;
  for (size_t i = 0; i < w.size(); ++i) w[i] += 0.05 * std::cos(2.0 * double(i));
  const double l = gradient_of(w, grad);
  std::printf("width %d\nboundary_weight %.17g\n", kWidth, kBoundaryWeight);
  line("w", w);
  line("interior", kInterior);
  line("boundary", kBoundary);
  line("loss", {l});
  line("grad", grad);
}
