// Corpus: nested requests and derivatives of higher order (docs/adjc.md, "Nested and higher
// derivatives"), each against central finite differences of the derivative one order lower
// (tangentcheck.hpp, double) and, for the second derivatives, against their closed forms.
#include <adjoint/ad.hpp>

#include <cmath>

#include "tangentcheck.hpp"

using tangentcheck::expect;

namespace nesting {

const double points[] = {-0.8, 0.3, 1.7};

double f(double x, double y) { return std::sin(x) * y * x + std::exp(0.5 * x * y); }
// f's derivatives in closed form.
double f_x(double x, double y) { return (std::cos(x) * x + std::sin(x)) * y + 0.5 * y * std::exp(0.5 * x * y); }
double f_xx(double x, double y) {
  return (2 * std::cos(x) - x * std::sin(x)) * y + 0.25 * y * y * std::exp(0.5 * x * y);
}
double f_xy(double x, double y) {
  return std::cos(x) * x + std::sin(x) + 0.5 * std::exp(0.5 * x * y) * (1 + 0.5 * x * y);
}

// A derivative inside a function that is differentiated in turn.
double slope(double x, double y) { return adjoint::derivative(f, "x").execute(x, y); }
// A derivative object kept in a local, called twice.
double penalty(double x, double y) {
  auto d = adjoint::derivative(f, "y");
  const double a = d.execute(x, y), b = d.execute(y, x);
  return a * a + b + f(x, y);
}

// Loops, branches and an early return through two stages.
double walk(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; ++i) {
    if (s > 50) return s;
    s += std::tanh(x * i) / i;
    if (i % 2 == 0) s *= 1 + 0.1 * x;
  }
  return s * x;
}
double walk_slope(double x, int n) { return adjoint::derivative(walk, "x").execute(x, n); }

// Local pointers into a parameter, in the code each stage differentiates again.
double layer(const double* w, double x) {
  const double* second = w + 2;
  double s = 0;
  for (int i = 0; i < 2; ++i) {
    const double* bias = second + i;
    s += std::tanh(w[i] * x + bias[0]) * w[4 + i];
  }
  return s;
}
double curvature(const double* w, double x) { return adjoint::derivative<2>(layer, "x").execute(w, x); }

// Floating locals declared in a loop's body, with a value (so each stage declares them there too):
// one reads the running sum, one is assigned again after its definition.
double blend(const double* w, double x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    const double weight = w[i];
    double t = std::tanh(weight * x + s);
    t *= t + weight;
    s += t * weight;
  }
  return s;
}
double blend_curvature(const double* w, double x, int n) { return adjoint::derivative<2>(blend, "x").execute(w, x, n); }

// A call returning a struct: its pushforward returns the struct with its tangent (as the
// pushforwards a nested request differentiates do, value_and_pushforward<S>).
struct Pair {
  double a, b;
};
Pair pair_of(double x) { return Pair{std::sin(x), x * x}; }
double pair_product(double x) {
  Pair p = pair_of(x);
  return p.a * p.b;
}

double on_array(const double* a) { return a[0] * a[1] * a[2] + std::sin(a[1]) * a[0] * a[0]; }
double cubic(const double* a) { return a[0] * a[0] * a[1] + a[1] * a[1] * a[1]; }

TEST(AdjcNesting, ForwardOverForward) {
  auto d = adjoint::derivative(slope, "x");
  for (double x : points)
    for (double y : {0.4, -1.1}) {
      expect<double>("d/dx slope", d.execute(x, y), [&](double t) { return slope(x + t, y); });
      EXPECT_NEAR(d.execute(x, y), f_xx(x, y), 1e-12 * (1 + std::fabs(f_xx(x, y))));
      EXPECT_NEAR(slope(x, y), f_x(x, y), 1e-12 * (1 + std::fabs(f_x(x, y))));
    }
}

TEST(AdjcNesting, ReverseOverForward) {
  auto g = adjoint::gradient(slope, "x, y");
  for (double x : points) {
    const double y = 0.7;
    double dx = 0, dy = 0;
    g.execute(x, y, &dx, &dy);
    EXPECT_NEAR(dx, f_xx(x, y), 1e-12 * (1 + std::fabs(f_xx(x, y))));
    EXPECT_NEAR(dy, f_xy(x, y), 1e-12 * (1 + std::fabs(f_xy(x, y))));
  }
  auto p = adjoint::gradient(penalty, "x, y");
  for (double x : points) {
    const double y = -0.3;
    double dx = 0, dy = 0;
    p.execute(x, y, &dx, &dy);
    expect<double>("d penalty/dx", dx, [&](double t) { return penalty(x + t, y); });
    expect<double>("d penalty/dy", dy, [&](double t) { return penalty(x, y + t); });
  }
}

TEST(AdjcNesting, HigherOrder) {
  auto d2 = adjoint::derivative<2>(f, "x");
  auto dxy = adjoint::derivative<2>(f, "x, y");
  auto d3 = adjoint::derivative<3>(f, "x");
  auto d4 = adjoint::derivative<4>(f, 0);
  for (double x : points) {
    const double y = 1.3;
    EXPECT_NEAR(d2.execute(x, y), f_xx(x, y), 1e-12 * (1 + std::fabs(f_xx(x, y))));
    EXPECT_NEAR(dxy.execute(x, y), f_xy(x, y), 1e-12 * (1 + std::fabs(f_xy(x, y))));
    expect<double>("d3f/dx3", d3.execute(x, y), [&](double t) { return d2.execute(x + t, y); });
    expect<double>("d4f/dx4", d4.execute(x, y), [&](double t) { return d3.execute(x + t, y); });
  }
}

TEST(AdjcNesting, ControlFlowThroughStages) {
  auto d2 = adjoint::derivative<2>(walk, "x");
  auto g = adjoint::gradient(walk_slope, "x");
  for (double x : points) {
    expect<double>("walk''", d2.execute(x, 6), [&](double t) { return walk_slope(x + t, 6); });
    double dx = 0;
    g.execute(x, 6, &dx);
    EXPECT_NEAR(dx, d2.execute(x, 6), 1e-12 * (1 + std::fabs(dx)));
  }
}

TEST(AdjcNesting, GradientOverSecondDerivativeThroughLocalPointers) {
  double w[6] = {0.5, -0.3, 1.2, 0.1, 0.7, -0.4}, g[6] = {};
  adjoint::gradient(curvature, "w").execute(w, 0.4, g);
  for (int i = 0; i < 6; ++i) {
    double moved[6] = {w[0], w[1], w[2], w[3], w[4], w[5]};
    expect<double>("d curvature/dw", g[i], [&](double t) {
      moved[i] = w[i] + t;
      return curvature(moved, 0.4);
    });
  }
}

TEST(AdjcNesting, GradientOverSecondDerivativeThroughLoopLocals) {
  double w[4] = {0.5, -0.3, 1.2, 0.8}, g[4] = {};
  auto d = adjoint::derivative(blend, "x");
  auto d2 = adjoint::derivative<2>(blend, "x");
  for (double x : points) {
    expect<double>("blend'", d.execute(w, x, 4), [&](double t) { return blend(w, x + t, 4); });
    expect<double>("blend''", d2.execute(w, x, 4), [&](double t) { return d.execute(w, x + t, 4); });
  }
  adjoint::gradient(blend_curvature, "w").execute(w, 0.4, 4, g);
  for (int i = 0; i < 4; ++i) {
    double moved[4] = {w[0], w[1], w[2], w[3]};
    expect<double>("d blend''/dw", g[i], [&](double t) {
      moved[i] = w[i] + t;
      return blend_curvature(moved, 0.4, 4);
    });
  }
}

TEST(AdjcNesting, StructResults) {
  auto d = adjoint::derivative(pair_product, "x");
  auto d2 = adjoint::derivative<2>(pair_product, "x");
  for (double x : points) {
    expect<double>("d pair_product", d.execute(x), [&](double t) { return pair_product(x + t); });
    expect<double>("d2 pair_product", d2.execute(x), [&](double t) { return d.execute(x + t); });
  }
}

TEST(AdjcNesting, ArrayElementsAndDirections) {
  // Along unit directions: one entry of the Hessian.
  auto dd2 = adjoint::derivative<2>(on_array, "a");
  double a[3] = {0.6, -1.2, 2.0}, e0[3] = {1, 0, 0}, e1[3] = {0, 1, 0};
  EXPECT_NEAR(dd2.execute(a, e0, e0), 2 * std::sin(a[1]), 1e-12);
  EXPECT_NEAR(dd2.execute(a, e0, e1), a[2] + 2 * std::cos(a[1]) * a[0], 1e-12);
  // Along directions u then v: vᵀ H u.
  auto dd = adjoint::derivative<2>(cubic, "a");
  double p[2] = {0.5, -0.7}, u[2] = {1, 2}, v[2] = {-1, 0.5};
  // H = [[2 a1, 2 a0], [2 a0, 6 a1]]
  const double h00 = 2 * p[1], h01 = 2 * p[0], h11 = 6 * p[1];
  const double expected = v[0] * (h00 * u[0] + h01 * u[1]) + v[1] * (h01 * u[0] + h11 * u[1]);
  EXPECT_NEAR(dd.execute(p, u, v), expected, 1e-12);
}

}  // namespace nesting
