// Pointer parameters in Clad's style pointed at the other array and walked (`w = v; ++w;`): from
// that statement on, the pointer reads v's elements and its adjoint walks v's adjoint in step.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

using clad_style::expect_gradient;

double crossed(const double* v, const double* w) {
  double total = w[1] * w[3];
  w = v;
  v = v + 2;
  ++w;
  total += v[0] * std::sin(w[0]);
  w++;
  v--;
  total += v[0] * w[0] * w[1];
  w -= 2;
  total += std::exp(w[0]) * v[1];
  return total;
}

int main() {
  double v[4] = {0.3, -1.1, 0.8, 1.7}, w[4] = {2.0, 0.4, -0.6, 1.2};
  double dv[4] = {}, dw[4] = {};
  clad::gradient(crossed).execute(v, w, dv, dw);
  auto f = [&] { return crossed(v, w); };
  const char* names_v[] = {"dv[0]", "dv[1]", "dv[2]", "dv[3]"};
  const char* names_w[] = {"dw[0]", "dw[1]", "dw[2]", "dw[3]"};
  for (int i = 0; i < 4; i++) expect_gradient(names_v[i], dv[i], v[i], f);
  for (int i = 0; i < 4; i++) expect_gradient(names_w[i], dw[i], w[i], f);
  return clad_style::report();
}
