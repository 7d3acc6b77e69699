// Classes marked after their definition with CLAD_NONDIFFERENTIABLE_TYPE: their members and the
// results of their member functions are constants to the derivative, whatever they are computed
// from (as for a class marked CLAD_NONDIFFERENTIABLE).
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

using clad_style::expect_value;

namespace units {
struct Gauge {
  double reading;
  double scaled(double k) const { return reading * k; }
};
}  // namespace units
CLAD_NONDIFFERENTIABLE_TYPE(units::Gauge);

// Unmarked: the same class under another name is differentiated.
struct Probe {
  double reading;
  double scaled(double k) const { return reading * k; }
};

double marked(double x, double y) {
  units::Gauge g{x * x};
  return x * y + g.scaled(y) + g.reading * y;
}

double unmarked(double x, double y) {
  Probe p{x * x};
  return x * y + p.scaled(y) + p.reading * y;
}

int main() {
  const double x = 1.5, y = -0.4;
  double dx = 0, dy = 0;
  clad::gradient(marked).execute(x, y, &dx, &dy);
  // The gauge's reading (x * x) and g.scaled(y) are constants: d/dx = y; d/dy = x + reading.
  expect_value("marked: dx", dx, y);
  expect_value("marked: dy", dy, x + x * x);
  dx = dy = 0;
  clad::gradient(unmarked).execute(x, y, &dx, &dy);
  expect_value("unmarked: dx", dx, y + 2 * (2 * x) * y);
  expect_value("unmarked: dy", dy, x + 2 * x * x);
  return clad_style::report();
}
