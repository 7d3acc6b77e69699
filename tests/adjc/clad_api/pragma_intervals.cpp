// Clad's `#pragma clad OFF` ... `#pragma clad ON`: requests written while it is OFF generate
// nothing (getFunctionPtr() is null); those before and after are ordinary gradients, checked
// against central differences.
#include "clad/Differentiator/Differentiator.h"

#include <cmath>

#include "clad_style/check.hpp"

double bump(double x, double y) { return std::exp(-x * x) * std::cos(y); }

int main() {
#pragma clad ON
  auto first = clad::gradient(bump);
#pragma clad OFF
  auto skipped = clad::gradient(bump, "x");
#pragma clad DEFAULT
  auto last = clad::gradient(bump, "y");
  clad_style::expect_value("first generated", first.getFunctionPtr() != nullptr, 1);
  clad_style::expect_value("skipped generated", skipped.getFunctionPtr() != nullptr, 0);
  clad_style::expect_value("last generated", last.getFunctionPtr() != nullptr, 1);
  double x = 0.6, y = -0.4, dx = 0, dy = 0, dy_last = 0;
  first.execute(x, y, &dx, &dy);
  last.execute(x, y, &dy_last);
  auto f = [&] { return bump(x, y); };
  clad_style::expect_gradient("dx", dx, x, f);
  clad_style::expect_gradient("dy", dy, y, f);
  clad_style::expect_gradient("dy (after DEFAULT)", dy_last, y, f);
  return clad_style::report();
}
