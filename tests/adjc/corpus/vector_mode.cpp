// Corpus: vector forward mode (adjoint::derivative<adjoint::vector_mode>): the derivatives of a
// function's result in several parameters from one sweep, each against central differences
// (tangentcheck.hpp: h = 1e-6, tolerance 1e-6) and against scalar forward mode (1e-12).
#include <adjoint/ad.hpp>

#include <cmath>

#include "tangentcheck.hpp"

namespace vector_mode {

double scale(double x, double s) { return std::sin(s * x) / (1 + x * x); }

double energy(double x, double y, const double w[3], int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) e += w[i] * std::exp(-x * i) + scale(y, w[i]);
  if (e > 2) e = std::sqrt(e);
  return e * x;
}

TEST(VectorMode, ScalarsAndAFixedArray) {
  auto d = adjoint::derivative<adjoint::vector_mode>(energy, "x, y, w");
  const double w[3] = {0.7, -0.2, 1.1};
  for (double x : {-0.4, 0.3, 1.2}) {
    const double y = 0.5 - x;
    double d_x = 0, d_y = 0, d_w[3] = {};
    d.execute(x, y, w, 3, &d_x, &d_y, d_w);
    tangentcheck::expect<double>("x", d_x, [&](double t) { return energy(x + t, y, w, 3); });
    tangentcheck::expect<double>("y", d_y, [&](double t) { return energy(x, y + t, w, 3); });
    for (int k = 0; k < 3; ++k)
      tangentcheck::expect<double>("w", d_w[k], [&](double t) {
        double v[3] = {w[0], w[1], w[2]};
        v[k] += t;
        return energy(x, y, v, 3);
      });
    const double scalar = adjoint::derivative(energy, "x").execute(x, y, w, 3);
    EXPECT_NEAR(d_x, scalar, 1e-12 * std::max(1.0, std::fabs(scalar)));
  }
}

TEST(VectorMode, ByDefaultEveryParameter) {
  auto d = adjoint::derivative<adjoint::vector_mode>(scale);
  double d_x = 0, d_s = 0;
  d.execute(0.8, 1.5, &d_x, &d_s);
  tangentcheck::expect<double>("x", d_x, [&](double t) { return scale(0.8 + t, 1.5); });
  tangentcheck::expect<double>("s", d_s, [&](double t) { return scale(0.8, 1.5 + t); });
}

}  // namespace vector_mode
