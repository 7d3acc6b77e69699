// Corpus: vector forward mode (adjoint::derivative<adjoint::vector_mode>): the derivatives of a
// function's result in several parameters from one sweep, each against central differences
// (tangentcheck.hpp: h = 1e-6, tolerance 1e-6) and against scalar forward mode (1e-12).
#include <adjoint/ad.hpp>

#include <cmath>
#include <span>
#include <vector>

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

// A pointer input: its length, the number of its directions, is known only when execute runs (the
// size of the span its derivative is written to), so the sweeps take 8 of its directions at a time.
double weighted_norm(const double* x, double w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += w * x[i] * x[i] * (1 + 0.1 * i);
  return std::sqrt(s) + w * x[0];
}

TEST(VectorMode, PointerOfRunTimeLength) {
  auto d = adjoint::derivative<adjoint::vector_mode>(weighted_norm, "x, w");
  for (int n : {1, 8, 19}) {
    std::vector<double> x(static_cast<std::size_t>(n)), d_x(static_cast<std::size_t>(n), -1.0);
    for (int i = 0; i < n; ++i) x[std::size_t(i)] = 0.3 * i - 1.1;
    const double w = 0.8;
    double d_w = 0;
    d.execute(x.data(), w, n, std::span<double>(d_x), &d_w);
    for (int k = 0; k < n; ++k)
      tangentcheck::expect<double>("x", d_x[std::size_t(k)], [&](double t) {
        std::vector<double> v = x;
        v[std::size_t(k)] += t;
        return weighted_norm(v.data(), w, n);
      });
    tangentcheck::expect<double>("w", d_w, [&](double t) { return weighted_norm(x.data(), w + t, n); });
  }
}

// Tangents of float and double parameters meet (a float's tangent widened where it meets a
// double's, a double's narrowed where a float is assigned), in branches and compound assignments.
float mixed_precision(float a, double b, const double c[2]) {
  double t = a * b + c[0];
  float u = float(t * c[1]);
  u += a;
  double v = a > 0 ? b * c[1] : a;
  v -= u * a;
  return u * float(v) + a;
}

TEST(VectorMode, FloatAndDoubleTangents) {
  auto d = adjoint::derivative<adjoint::vector_mode>(mixed_precision, "a, b, c");
  const double c[2] = {0.4, -1.3};
  for (float a : {-0.6f, 0.9f}) {
    const double b = 1.7;
    float d_a = 0;
    double d_b = 0, d_c[2] = {};
    d.execute(a, b, c, &d_a, &d_b, d_c);
    tangentcheck::expect<float>("a", d_a, [&](float t) { return mixed_precision(a + t, b, c); });
    tangentcheck::expect<float>("b", d_b, [&](float t) { return mixed_precision(a, b + t, c); });
    for (int k = 0; k < 2; ++k)
      tangentcheck::expect<float>("c", d_c[k], [&](float t) {
        double v[2] = {c[0], c[1]};
        v[k] += t;
        return mixed_precision(a, b, v);
      });
  }
}

}  // namespace vector_mode
