// Corpus: scalar arithmetic, locals, compound assignment, ++/--, ternary.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

double add_mul(double x, double y) { return x * y + x - y; }
double divide(double x, double y) { return x / y + 1.0 / (x + 3.0); }
double negate(double x) { return -x * -(x + 1.0); }
double locals(double x, double y) {
  double a = x * x;
  double b = a * y;
  a = b + a * x;  // reassignment of a local
  return a * b;
}
double compound(double x, double y) {
  double s = x;
  s += y * x;
  s -= y;
  s *= x + y;
  s /= y + 2.0;
  return s * s;
}
double increments(double x) {
  double t = x;
  t++;
  ++t;
  t--;
  return t * t;
}
double ternary(double x, double y) { return x > y ? x * y : x - y * y; }
double ternary_nested(double x, double y) { return x > 0 ? (y > 0 ? x * y : x) : -y; }
float single_precision(float x, float y) { return x * x * y + 2.0f * y; }
double mixed_precision(float x, double y) { return double(x) * y + static_cast<double>(x * x); }
double int_param(double x, int n) { return x * n + n; }
double constant_result(double) { return 3.0; }
double self_overwrite(double x) {
  double t = x;
  t = t * t;
  t = t * t + t;
  return t;
}
double chain(double x) {
  double a = x + 1, b = a * a, c = b * a, d = c / b;
  return d * c;
}
double casts(double x, float y) { return static_cast<float>(x) * y + (double)y; }
double unary_plus(double x) { return +x * x; }

TEST(Scalar, add_mul) { auto g = adjoint::gradient(add_mul); check("add_mul", g, add_mul, Scalar<double>{}, Scalar<double>{}); }
TEST(Scalar, divide) { auto g = adjoint::gradient(divide); check("divide", g, divide, Scalar<double>{}, Scalar<double>{1, 2}); }
TEST(Scalar, negate) { auto g = adjoint::gradient(negate); check("negate", g, negate, Scalar<double>{}); }
TEST(Scalar, locals) { auto g = adjoint::gradient(locals); check("locals", g, locals, Scalar<double>{}, Scalar<double>{}); }
TEST(Scalar, compound) { auto g = adjoint::gradient(compound); check("compound", g, compound, Scalar<double>{}, Scalar<double>{}); }
TEST(Scalar, increments) { auto g = adjoint::gradient(increments); check("increments", g, increments, Scalar<double>{}); }
TEST(Scalar, ternary) { auto g = adjoint::gradient(ternary); check("ternary", g, ternary, Scalar<double>{}, Scalar<double>{}); }
TEST(Scalar, ternary_nested) {
  auto g = adjoint::gradient(ternary_nested);
  check("ternary_nested", g, ternary_nested, Scalar<double>{}, Scalar<double>{});
}
TEST(Scalar, single_precision) {
  auto g = adjoint::gradient(single_precision);
  check("single_precision", g, single_precision, Scalar<float>{}, Scalar<float>{});
}
TEST(Scalar, mixed_precision) {
  auto g = adjoint::gradient(mixed_precision, "y");
  check("mixed_precision", g, mixed_precision, Fixed<float>{0.5f}, Scalar<double>{});
}
TEST(Scalar, int_param) { auto g = adjoint::gradient(int_param, "x"); check("int_param", g, int_param, Scalar<double>{}, 3); }
TEST(Scalar, constant_result) {
  auto g = adjoint::gradient(constant_result);
  check("constant_result", g, constant_result, Scalar<double>{});
}
TEST(Scalar, self_overwrite) { auto g = adjoint::gradient(self_overwrite); check("self_overwrite", g, self_overwrite, Scalar<double>{}); }
TEST(Scalar, chain) { auto g = adjoint::gradient(chain); check("chain", g, chain, Scalar<double>{0.5, 1.5}); }
TEST(Scalar, casts) { auto g = adjoint::gradient(casts, "y"); check("casts", g, casts, Fixed<double>{0.25}, Scalar<float>{}); }
TEST(Scalar, unary_plus) { auto g = adjoint::gradient(unary_plus); check("unary_plus", g, unary_plus, Scalar<double>{}); }

double param_reassigned(double x, double y) {
  x = x * y;
  y = y + x * x;
  return x * y;
}
double const_locals(double x) {
  const double c = x * 2;
  const double d = c * c + x;
  return d / c;
}

TEST(Scalar, param_reassigned) {
  auto g = adjoint::gradient(param_reassigned);
  check("param_reassigned", g, param_reassigned, Scalar<double>{}, Scalar<double>{});
}
TEST(Scalar, param_reassigned_accumulates) {
  // Adjoints are added to what the caller's variables hold.
  double dx = 10, dy = 20;
  auto g = adjoint::gradient(param_reassigned);
  g.execute(0.5, 2.0, &dx, &dy);
  // f = x1 (y + x1²) with x1 = x y: df/dx = y (y + 3 x² y²) = 10 at (0.5, 2)
  EXPECT_NEAR(dx, 10 + 10, 1e-12);
  EXPECT_GT(dy, 20);
}
TEST(Scalar, const_locals) { auto g = adjoint::gradient(const_locals); check("const_locals", g, const_locals, Scalar<double>{0.5, 1.5}); }
