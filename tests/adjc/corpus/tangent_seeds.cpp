// Corpus: forward mode (adjoint::derivative) along one element of a pointer or std::vector
// parameter, along one member of a struct parameter, of a function returning a struct, and through
// calls marked non_differentiable; each against central finite differences (tangentcheck.hpp).
#include <adjoint/ad.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "tangentcheck.hpp"

using tangentcheck::expect;

namespace tangent_seeds {

// Reads x[0..n): a length adjc cannot know, so the direction is 0 beyond any index f reads.
double softplus_sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += std::log1p(std::exp(x[i] * (i + 1)));
  return s * x[n - 1];
}

double shifted(const double* x) { return x[-1] * x[1] + std::sin(x[0]); }

double vector_norm(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e * e;
  return std::sqrt(s);
}

struct Spring {
  double k;
  struct {
    double x, v;
  } state;
  int id;
};

double energy(const Spring& s, double m) { return 0.5 * s.k * s.state.x * s.state.x + 0.5 * m * s.state.v * s.state.v; }

std::pair<double, double> polar(double r, double phi) { return {r * std::cos(phi), r * std::sin(phi)}; }

struct Moments {
  double mean, square;
};
Moments moments(const double* x, int n, double shift) {
  Moments m{0, 0};
  for (int i = 0; i < n; ++i) {
    m.mean += (x[i] + shift) / n;
    m.square += (x[i] + shift) * (x[i] + shift) / n;
  }
  return m;
}

// A function marked non_differentiable (Clad's mark): its result is a constant of the derivative.
ADJOINT_NON_DIFFERENTIABLE double rounded(double x) { return std::floor(x * 4) / 4; }

struct Table {
  double scale;
  ADJOINT_NON_DIFFERENTIABLE double lookup(double x) const { return scale * x * x; }
  double eval(double x) const { return lookup(x) + scale * x; }
};

double with_constants(double x) { return rounded(x) * x + x; }

}  // namespace tangent_seeds

// The requests outside the namespace: their declarations go before the declaration holding them,
// after the types they name.
using namespace tangent_seeds;

TEST(TangentSeeds, ElementOfAPointer) {
  auto d2 = adjoint::derivative(softplus_sum, "x[2]");
  auto d0 = adjoint::derivative(softplus_sum, 0);  // the whole array, along a direction
  std::vector<double> x = {0.3, -0.7, 1.1, 0.2, -0.4};
  for (int n : {3, 5}) {
    expect<double>("x[2]", d2.execute(x.data(), n), [&](double t) {
      std::vector<double> v = x;
      v[2] += t;
      return softplus_sum(v.data(), n);
    });
    double dir[5] = {0, 0, 1, 0, 0};
    EXPECT_EQ(d2.execute(x.data(), n), d0.execute(x.data(), n, dir));
  }
  // An element below the pointer: the direction extends both ways.
  double y[3] = {0.5, 1.5, -2.0};
  expect<double>("x[-1]", adjoint::derivative(shifted, "x[1]").execute(y + 1), [&](double t) {
    double v[3] = {y[0], y[1], y[2] + t};
    return shifted(v + 1);
  });
}

TEST(TangentSeeds, ElementOfAVector) {
  auto d = adjoint::derivative(vector_norm, "v[1]");
  std::vector<double> v = {3, 4, 12};
  expect<double>("v[1]", d.execute(v), [&](double t) {
    std::vector<double> w = v;
    w[1] += t;
    return vector_norm(w);
  });
}

TEST(TangentSeedsDeathTest, ElementBeyondAVector) {
  auto d = adjoint::derivative(vector_norm, "v[3]");
  std::vector<double> v = {3, 4, 12};
  EXPECT_DEATH(d.execute(v), "adjoint::derivative: element 3 of 'v' is beyond its size 3");
}

TEST(TangentSeeds, MemberOfAStruct) {
  Spring s{2.5, {0.4, -1.2}, 7};
  expect<double>("s.k", adjoint::derivative(energy, "s.k").execute(s, 3.0), [&](double t) {
    Spring u = s;
    u.k += t;
    return energy(u, 3.0);
  });
  expect<double>("s.state.v", adjoint::derivative(energy, "s.state.v").execute(s, 3.0), [&](double t) {
    Spring u = s;
    u.state.v += t;
    return energy(u, 3.0);
  });
}

TEST(TangentSeeds, StructResults) {
  auto d = adjoint::derivative(polar, "phi");
  for (double phi : {-0.8, 0.3, 1.7}) {
    auto p = d.execute(2.0, phi);
    expect<double>("first", p.first, [&](double t) { return polar(2.0, phi + t).first; });
    expect<double>("second", p.second, [&](double t) { return polar(2.0, phi + t).second; });
  }
  const double x[3] = {0.5, -1.0, 2.0};
  auto m = adjoint::derivative(moments, "shift").execute(x, 3, 0.25);
  expect<double>("mean", m.mean, [&](double t) { return moments(x, 3, 0.25 + t).mean; });
  expect<double>("square", m.square, [&](double t) { return moments(x, 3, 0.25 + t).square; });
}

TEST(TangentSeeds, NonDifferentiableCalls) {
  for (double x : {-0.8, 0.3, 1.7}) {
    EXPECT_DOUBLE_EQ(adjoint::derivative(with_constants, "x").execute(x), rounded(x) + 1);
    Table table{1.5};
    EXPECT_DOUBLE_EQ(adjoint::derivative(&Table::eval, "x").execute(table, x), 1.5);
  }
}
