// Corpus: forward mode (adjoint::derivative) against central finite differences (tangentcheck.hpp),
// each function at several points: arithmetic, math functions, locals, branches, loops, early
// returns, calls (generated and custom pushforwards, recursion), arrays along a direction, array
// elements, std::array and std::vector parameters.
#include <adjoint/ad.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "tangentcheck.hpp"

using tangentcheck::expect;

// In a namespace of their own: the corpus is one program, whose other files have a `square` too.
namespace tangents {

const double points[] = {-0.8, 0.3, 1.7};

double poly(double x, double y) { return 3 * x * x * y - x / y + 2 - (-x); }
double math_mix(double x) {
  double a = std::exp(x) * std::sin(x) + std::cos(2 * x) * std::tan(x * 0.3);
  double b = std::log(x * x + 1) + std::sqrt(x * x + 2) + std::pow(x * x + 1, 1.5) + std::pow(2.0, x);
  double c = std::atan2(x, 2.0) + std::hypot(x, 3.0) + std::tanh(x) + std::erf(x) + std::cbrt(x + 5);
  return a * b + c + std::fabs(x - 0.1) + std::fmax(x, 0.2) * std::fmin(x * x, 0.5) + std::log1p(x * x);
}
// The complete elliptic integrals K and E, for |k| < 1 away from 0.
double elliptic(double k) { return std::comp_ellint_1(k) * std::comp_ellint_2(k * 0.5) + std::comp_ellint_2(k); }
double branches(double x, double y) {
  double r = x > 0 ? x * y : y - x;
  if (x > y) {
    r *= x;
  } else if (x < -y) {
    r = r / (1 + x * x);
  } else {
    r -= std::sin(y);
  }
  return r;
}
double loops(double x, int n) {
  double s = 0, p = 1;
  for (int i = 0; i < n; ++i) {
    if (i == 2) continue;
    s += p * std::sin(x * i);
    p *= x;
    if (s > 100) break;
  }
  int k = 0;
  while (k < 3) {
    s = s * 0.5 + x;
    k++;
  }
  do {
    s /= (1 + x * x);
  } while (--k > 0);
  return s;
}
double early_return(double x) {
  double s = x;
  for (int i = 0; i < 10; i++) {
    s = s * s + 0.1;
    if (s > 2) return s * x;
  }
  if (x < 0) return -s;
  return s + x;
}
float single(float x, float y) { return std::tanh(x) * y + std::exp(x * 0.5f) / (1.0f + y * y); }

double square(double a) { return a * a; }
double chain(double x, double y) { return square(x) * y + square(std::sin(x * y)); }
double power(double x, int n) { return n <= 0 ? 1.0 : x * power(x, n - 1); }
void add_square(double& acc, double v) { acc += v * v; }
void fill_pair(double x, double* out) {
  out[0] = x * 2;
  out[1] = std::sin(x);
}
double through_memory(double x) {
  double o[2];
  fill_pair(x, o);
  double a = 0.5;
  add_square(a, o[1]);
  return o[0] * a;
}

// Counts its calls: the test checks forward mode calls it instead of differentiating the body.
int custom_calls = 0;
double cubed(double x) { return x * x * x; }

}  // namespace tangents

namespace adjoint::custom_derivatives {
adjoint::value_and_pushforward<double> cubed_pushforward(double x, double d_x) {
  ++tangents::custom_calls;
  return {x * x * x, 3 * x * x * d_x};
}
}  // namespace adjoint::custom_derivatives

namespace tangents {

double uses_cubed(double x, double y) { return cubed(x * y) + y; }

double weighted(const double* a, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * a[i] * (i + 1);
  return std::tanh(s);
}
double fixed(const double a[3]) { return a[0] * a[1] * std::exp(a[2]); }
double local_array(double x) {
  double t[4];
  for (int i = 0; i < 4; ++i) t[i] = x * i;
  double s = 0;
  for (int i = 0; i < 4; ++i) s += t[i] * t[3 - i];
  return s;
}
double std_array(const std::array<double, 3>& a) { return a[0] * a[1] + std::exp(a[2]); }
double std_vector(const std::vector<double>& v) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += v[i] * v[i] * v[i];
  return s;
}

struct Model {
  double w;
  double apply(double x) const { return std::tanh(w * x); }
};
double member_call(double x) {
  Model m{0.7};
  return m.apply(x) * x;
}
struct Spring {
  double k, rest;
  double energy(double x) const { return 0.5 * k * (x - rest) * (x - rest) + std::sin(k * x); }
};
double by_reference(const double& a, double b) { return a * b + std::sqrt(a * a + 1); }
double references(double x) { return by_reference(x, x * 2) + by_reference(3.0, x); }
double while_continue(double x) {
  double s = 0;
  int i = 0;
  while (i < 6) {
    i++;
    if (i % 2 == 0) continue;
    s += x * i * s + x;
  }
  return s;
}
double parallel_sum(const double* a, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) s += a[i] * std::sin(a[i]);
  return s;
}

}  // namespace tangents

using namespace tangents;

TEST(Tangents, Arithmetic) {
  auto dx = adjoint::derivative(poly, "x");
  auto dy = adjoint::derivative(poly, 1);
  for (double x : points) {
    expect<double>("poly/x", dx.execute(x, 1.3), [&](double t) { return poly(x + t, 1.3); });
    expect<double>("poly/y", dy.execute(1.3, x), [&](double t) { return poly(1.3, x + t); });
  }
}

TEST(Tangents, MathFunctions) {
  auto d = adjoint::derivative(math_mix, "x");
  for (double x : points) expect<double>("math_mix", d.execute(x), [&](double t) { return math_mix(x + t); });
  auto de = adjoint::derivative(elliptic, "k");
  for (double k : {-0.7, 0.2, 0.6})
    expect<double>("elliptic", de.execute(k), [&](double t) { return elliptic(k + t); });
  auto df = adjoint::derivative(single, "x");
  for (double x : points)
    expect<float>("single", df.execute(float(x), 0.7f), [&](float t) { return single(float(x) + t, 0.7f); });
}

TEST(Tangents, BranchesAndLoops) {
  auto db = adjoint::derivative(branches, "x");
  auto dl = adjoint::derivative(loops, "x");
  auto de = adjoint::derivative(early_return, "x");
  for (double x : points) {
    for (double y : {0.5, -1.5})
      expect<double>("branches", db.execute(x, y), [&](double t) { return branches(x + t, y); });
    expect<double>("loops", dl.execute(x, 6), [&](double t) { return loops(x + t, 6); });
    expect<double>("early_return", de.execute(x), [&](double t) { return early_return(x + t); });
  }
}

TEST(Tangents, Calls) {
  auto dc = adjoint::derivative(chain, "y");
  auto dp = adjoint::derivative(power, "x");
  auto dm = adjoint::derivative(through_memory, "x");
  for (double x : points) {
    expect<double>("chain", dc.execute(0.9, x), [&](double t) { return chain(0.9, x + t); });
    expect<double>("power", dp.execute(x, 5), [&](double t) { return power(x + t, 5); });
    expect<double>("through_memory", dm.execute(x), [&](double t) { return through_memory(x + t); });
  }
  EXPECT_NE(std::string(dc.source()).find("square_pushforward"), std::string::npos);
}

TEST(Tangents, MemberCallsReferencesLoops) {
  auto dm = adjoint::derivative(member_call, "x");
  auto dr = adjoint::derivative(references, "x");
  auto dw = adjoint::derivative(while_continue, "x");
  for (double x : points) {
    expect<double>("member_call", dm.execute(x), [&](double t) { return member_call(x + t); });
    expect<double>("references", dr.execute(x), [&](double t) { return references(x + t); });
    expect<double>("while_continue", dw.execute(x), [&](double t) { return while_continue(x + t); });
  }
  Spring spring{1.3, 0.2};
  auto de = adjoint::derivative(&Spring::energy, "x");
  for (double x : points) {
    expect<double>("Spring::energy, object by reference", de.execute(spring, x),
                   [&](double t) { return spring.energy(x + t); });
    expect<double>("Spring::energy, object by pointer", de.execute(&spring, x),
                   [&](double t) { return spring.energy(x + t); });
  }
  auto dp = adjoint::derivative(parallel_sum, "a");
  double a[4] = {0.1, -0.7, 1.2, 0.4}, direction[4] = {1, -0.5, 0.25, 2};
  expect<double>("parallel_sum (run serially)", dp.execute(a, 4, direction), [&](double t) {
    double moved[4];
    for (int i = 0; i < 4; ++i) moved[i] = a[i] + t * direction[i];
    return parallel_sum(moved, 4);
  });
}

TEST(Tangents, CustomPushforward) {
  auto d = adjoint::derivative(uses_cubed, "x");
  custom_calls = 0;
  for (double x : points)
    expect<double>("uses_cubed", d.execute(x, 1.2), [&](double t) { return uses_cubed(x + t, 1.2); });
  EXPECT_EQ(custom_calls, 3);
}

TEST(Tangents, Arrays) {
  auto dw = adjoint::derivative(weighted, "a");
  double a[3] = {0.1, -0.4, 0.3}, direction[3] = {1, 0.5, -1};
  expect<double>("weighted along a direction", dw.execute(a, 3, direction), [&](double t) {
    double moved[3];
    for (int i = 0; i < 3; ++i) moved[i] = a[i] + t * direction[i];
    return weighted(moved, 3);
  });
  auto d2 = adjoint::derivative(fixed, "a[2]");
  expect<double>("fixed a[2]", d2.execute(a), [&](double t) {
    double moved[3] = {a[0], a[1], a[2] + t};
    return fixed(moved);
  });
  auto dl = adjoint::derivative(local_array, "x");
  for (double x : points) expect<double>("local_array", dl.execute(x), [&](double t) { return local_array(x + t); });
}

TEST(Tangents, Containers) {
  auto da = adjoint::derivative(std_array, "a[1]");
  std::array<double, 3> a{0.5, -1.0, 0.25};
  expect<double>("std_array a[1]", da.execute(a), [&](double t) {
    std::array<double, 3> moved = a;
    moved[1] += t;
    return std_array(moved);
  });
  auto dv = adjoint::derivative(std_vector, "v");
  std::vector<double> v{0.5, -1.0, 2.0}, direction{0.3, 1.0, -0.5};
  expect<double>("std_vector along a direction", dv.execute(v, &direction), [&](double t) {
    std::vector<double> moved = v;
    for (size_t i = 0; i < v.size(); ++i) moved[i] += t * direction[i];
    return std_vector(moved);
  });
}
