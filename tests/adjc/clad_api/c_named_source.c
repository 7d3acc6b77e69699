// A source named `.c` that requests derivatives through Clad's header: adjc++ reads it as C++,
// as clang++ does (Clad's own suite has such a file), and compiles its output as C++.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

double damped(double* x, double k) {
  k = k * x[1];
  return std::exp(-k) * x[0];
}

int main() {
  double x[2] = {1.5, 0.7}, dx[2] = {0, 0}, k = 0.9, dk = 0;
  clad::gradient(damped).execute(x, k, dx, &dk);
  auto f = [&] { return damped(x, k); };
  clad_style::expect_gradient("dx[0]", dx[0], x[0], f);
  clad_style::expect_gradient("dx[1]", dx[1], x[1], f);
  clad_style::expect_gradient("dk", dk, k, f);
  return clad_style::report();
}
