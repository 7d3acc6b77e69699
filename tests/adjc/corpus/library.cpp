// Corpus: library functions, differentiated by adjc's rule table (docs/adjc.md, "Library
// functions"), never by their bodies: std::max/min/clamp (libstdc++'s return references), max/min
// of braced lists, the <cmath> set in std::, C and `f`-suffixed spellings, in double and float.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <math.h>

#include "gradcheck.hpp"

using namespace gradcheck;

// The reproducer: std::max returns `const double&`.
double max_product(double a, double b) { return std::max(a * b, 1.0 - a); }
// A ReLU with a literal of the element type.
void relu(float* y, const float* x, int n) {
  for (int i = 0; i < n; i++) y[i] = std::max(0.0f, x[i]);
}
void relu_min(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) y[i] = std::min(x[i] * 2, 0.5) + std::max<double>(x[i], 0);
}
double clamp_d(double x, double lo) { return std::clamp(x * 3, lo - 0.5, 1.0) * x; }
float clamp_f(float x, float hi) { return std::clamp(x * 3, -1.0f, hi + 1.5f) * x; }
double abs_d(double x, double y) { return std::abs(x * y) + std::fmax(x, y) * std::fmin(x, 2 * y) + fabs(y); }
float abs_f(float x, float y) { return std::abs(x * y) + std::fmax(x, y) * fminf(x, 2 * y) + fabsf(y); }
double exps_d(double x) { return std::exp2(x) + std::expm1(x) * exp2(x * 0.5) + expm1(x * x); }
float exps_f(float x) { return std::exp2(x) + std::expm1(x) * exp2f(x * 0.5f) + expm1f(x * x); }
double logs_d(double x) { return std::log2(x) + std::log10(x * 3) * std::log1p(x) + log1p(x * x) + log2(x); }
float logs_f(float x) { return std::log2(x) + std::log10(x * 3) * std::log1p(x) + log1pf(x * x) + log10f(x); }
double roots_d(double x, double y) { return std::cbrt(x) * std::hypot(x, y) + cbrt(y * y + 1) + hypot(y, 2.0); }
float roots_f(float x, float y) { return std::cbrt(x) * std::hypot(x, y) + cbrtf(y * y + 1) + hypotf(y, 2.0f); }
double trig_d(double x, double y) {
  return std::tan(x) + std::asin(x) * std::acos(y) + std::atan(x * y) + atan2(y, x + 2);
}
float trig_f(float x, float y) {
  return std::tan(x) + std::asin(x) * std::acos(y) + atanf(x * y) + std::atan2(y, x + 2);
}
double hyperbolic_d(double x) {
  return std::sinh(x) * std::cosh(x * 0.5) + std::asinh(x) + std::acosh(x * x + 1.5) + std::atanh(x * 0.5);
}
float hyperbolic_f(float x) {
  return sinhf(x) * std::cosh(x * 0.5f) + std::asinh(x) + acoshf(x * x + 1.5f) + atanhf(x * 0.5f);
}
double errors_d(double x) { return std::erf(x) * std::erfc(x * 0.5) + erfc(x); }
float errors_f(float x) { return std::erf(x) * std::erfc(x * 0.5f) + erfcf(x); }
// The complete elliptic integrals, on (0.1, 0.9): their derivatives divide by k and by 1 - k^2.
double elliptic_d(double k) { return std::comp_ellint_1(k) * k + std::comp_ellint_2(k * 0.5); }
double fma_copysign_d(double x, double y, double z) {
  return std::fma(x, y, z * z) + std::copysign(x * 2, y) + copysign(3.0, x);
}
float fma_copysign_f(float x, float y, float z) {
  return fmaf(x, y, z * z) + std::copysign(x * 2, y) + copysignf(3.0f, x);
}
// std::max / std::min of braced lists (nested two-argument calls), over windows of an array and
// as a running maximum in float.
void windows(double* y, const double* x, int n) {
  for (int i = 0; i + 2 < n; i++)
    y[i] = std::max({x[i], 2 * x[i + 1], x[i + 2]}) - std::min({x[i] * x[i + 1], x[i + 2], 0.5});
}
float running_max(const float* x, int n) {
  float m = x[0];
  for (int i = 1; i < n; i++) m = std::max({m, x[i] * 0.5f, std::min({x[i], 1.0f, -x[i - 1]})}) + x[i] * m;
  return m;
}
// Piecewise constant: zero derivative (the inputs stay away from the jumps).
double rounding_d(double x) { return x * std::floor(x) + std::ceil(x) * x + std::trunc(x) + std::round(x) * x * x; }
float rounding_f(float x) { return x * floorf(x) + std::ceil(x) * x + truncf(x) + std::round(x) * x * x; }

TEST(Library, max_product) {
  auto g = adjoint::gradient(max_product);
  check("max_product", g, max_product, Scalar<double>{}, Scalar<double>{});
}
TEST(Library, relu) {
  auto g = adjoint::gradient(relu);
  check("relu", g, relu, Out<float>{7}, In<float>{7}, 7);
}
TEST(Library, relu_min) {
  auto g = adjoint::gradient(relu_min);
  check("relu_min", g, relu_min, Out<double>{7}, In<double>{7}, 7);
}
TEST(Library, clamp_d) {
  auto g = adjoint::gradient(clamp_d);
  check("clamp_d", g, clamp_d, Scalar<double>{}, Scalar<double>{});
}
TEST(Library, clamp_f) {
  auto g = adjoint::gradient(clamp_f);
  check("clamp_f", g, clamp_f, Scalar<float>{}, Scalar<float>{});
}
TEST(Library, abs_d) {
  auto g = adjoint::gradient(abs_d);
  check("abs_d", g, abs_d, Scalar<double>{}, Scalar<double>{});
}
TEST(Library, abs_f) {
  auto g = adjoint::gradient(abs_f);
  check("abs_f", g, abs_f, Scalar<float>{}, Scalar<float>{});
}
TEST(Library, exps_d) {
  auto g = adjoint::gradient(exps_d);
  check("exps_d", g, exps_d, Scalar<double>{});
}
TEST(Library, exps_f) {
  auto g = adjoint::gradient(exps_f);
  check("exps_f", g, exps_f, Scalar<float>{});
}
TEST(Library, logs_d) {
  auto g = adjoint::gradient(logs_d);
  check("logs_d", g, logs_d, Scalar<double>{0.5, 2});
}
TEST(Library, logs_f) {
  auto g = adjoint::gradient(logs_f);
  check("logs_f", g, logs_f, Scalar<float>{0.5, 2});
}
TEST(Library, roots_d) {
  auto g = adjoint::gradient(roots_d);
  check("roots_d", g, roots_d, Scalar<double>{0.5, 2}, Scalar<double>{});
}
TEST(Library, roots_f) {
  auto g = adjoint::gradient(roots_f);
  check("roots_f", g, roots_f, Scalar<float>{0.5, 2}, Scalar<float>{});
}
TEST(Library, trig_d) {
  auto g = adjoint::gradient(trig_d);
  check("trig_d", g, trig_d, Scalar<double>{-0.8, 0.8}, Scalar<double>{-0.8, 0.8});
}
TEST(Library, trig_f) {
  auto g = adjoint::gradient(trig_f);
  check("trig_f", g, trig_f, Scalar<float>{-0.8, 0.8}, Scalar<float>{-0.8, 0.8});
}
TEST(Library, hyperbolic_d) {
  auto g = adjoint::gradient(hyperbolic_d);
  check("hyperbolic_d", g, hyperbolic_d, Scalar<double>{});
}
TEST(Library, hyperbolic_f) {
  auto g = adjoint::gradient(hyperbolic_f);
  check("hyperbolic_f", g, hyperbolic_f, Scalar<float>{});
}
TEST(Library, errors_d) {
  auto g = adjoint::gradient(errors_d);
  check("errors_d", g, errors_d, Scalar<double>{});
}
TEST(Library, errors_f) {
  auto g = adjoint::gradient(errors_f);
  check("errors_f", g, errors_f, Scalar<float>{});
}
TEST(Library, elliptic_d) {
  auto g = adjoint::gradient(elliptic_d);
  check("elliptic_d", g, elliptic_d, Scalar<double>{0.1, 0.9});
}
TEST(Library, fma_copysign_d) {
  auto g = adjoint::gradient(fma_copysign_d);
  check("fma_copysign_d", g, fma_copysign_d, Scalar<double>{}, Scalar<double>{}, Scalar<double>{});
}
TEST(Library, fma_copysign_f) {
  auto g = adjoint::gradient(fma_copysign_f);
  check("fma_copysign_f", g, fma_copysign_f, Scalar<float>{}, Scalar<float>{}, Scalar<float>{});
}
TEST(Library, rounding_d) {
  auto g = adjoint::gradient(rounding_d);
  check("rounding_d", g, rounding_d, Scalar<double>{0.1, 0.4});
}
TEST(Library, rounding_f) {
  auto g = adjoint::gradient(rounding_f);
  check("rounding_f", g, rounding_f, Scalar<float>{0.1, 0.4});
}

TEST(Library, max_min_lists) {
  check("windows", adjoint::gradient(windows), windows, Out<double>{5}, In<double>{7}, 7);
  check("running_max", adjoint::gradient(running_max), running_max, In<float>{5}, 5);
}

// Ties: the argument std::max / std::min return (the first) receives the whole adjoint.
double max_of(double a, double b) { return std::max(a, b); }
double min_of(double a, double b) { return std::min(a, b); }
double max_list(double a, double b, double c) { return std::max({a, b, c}); }
double min_list(double a, double b, double c) { return std::min({a, b, c}); }
TEST(Library, ties_go_to_the_first_argument) {
  double da = 0, db = 0;
  adjoint::gradient(max_of).execute(1.5, 1.5, &da, &db);
  EXPECT_EQ(da, 1.0);
  EXPECT_EQ(db, 0.0);
  da = db = 0;
  adjoint::gradient(min_of).execute(1.5, 1.5, &da, &db);
  EXPECT_EQ(da, 1.0);
  EXPECT_EQ(db, 0.0);
}
TEST(Library, list_ties_go_to_the_first_extreme) {
  struct Case {
    double a, b, c;
    double da, db, dc;  // expected
  };
  auto expect = [](const auto& gradient, const char* name, const Case& k) {
    double d[3] = {};
    gradient.execute(k.a, k.b, k.c, &d[0], &d[1], &d[2]);
    EXPECT_EQ(d[0], k.da) << name << "(" << k.a << ", " << k.b << ", " << k.c << ")";
    EXPECT_EQ(d[1], k.db) << name << "(" << k.a << ", " << k.b << ", " << k.c << ")";
    EXPECT_EQ(d[2], k.dc) << name << "(" << k.a << ", " << k.b << ", " << k.c << ")";
  };
  const Case max_cases[] = {{2, 2, 2, 1, 0, 0}, {1, 2, 2, 0, 1, 0}, {3, 1, 3, 1, 0, 0}, {1, 1, 2, 0, 0, 1}};
  const Case min_cases[] = {{2, 2, 2, 1, 0, 0}, {2, 1, 1, 0, 1, 0}, {1, 3, 1, 1, 0, 0}, {2, 2, 1, 0, 0, 1}};
  for (const Case& k : max_cases) expect(adjoint::gradient(max_list), "max_list", k);
  for (const Case& k : min_cases) expect(adjoint::gradient(min_list), "min_list", k);
}
