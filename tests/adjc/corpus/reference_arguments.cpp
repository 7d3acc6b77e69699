// Corpus: places passed to callees by non-const reference or by address: members of local structs
// (each a one-element region, like a floating local), array elements and members of struct
// parameters. Binding a reference to `y[i]` reads no value of y, so a call that writes y through it
// is not an argument read from memory the call overwrites. And `const double&` parameters bound to
// scalar locals, expressions and the reference std::min returns, whose derivatives were dropped
// (the argument was passed as inactive). (All found by tests/adjc/fuzz.)
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gradcheck.hpp"

using namespace gradcheck;

struct Pair {
  double a, b;
};
void add_square(double& s, double v) { s += v * v; }
void scale_by(double* s, double k) { *s = *s * k + k; }

double local_members(double x, double c) {
  Pair s = {c, c * x};
  add_square(s.a, x);    // s.a: a one-element region
  scale_by(&s.b, x);     // and s.b, by address
  Pair t{x, 0.5};
  add_square(t.b, s.a);
  return s.a * s.b + std::sin(t.b) * t.a;
}
void elements(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++) add_square(y[i], x[i] * x[i + 1]);
}
double member_of_parameter(Pair& p, double x) {
  const double b = p.b;  // (an argument read from p, which the call writes, would be rejected)
  add_square(p.a, x * b);
  return p.a * p.b;
}

double weigh(const double& a, const double& b) { return a * b + std::sin(a); }
double const_references(const double* x, double c) {
  double u = x[0] * c;
  double r = weigh(u, x[1]);              // a scalar local and an element
  r += weigh(x[2] * 2.0, c);              // an expression and a scalar parameter
  r += weigh(std::min(x[0], x[3]), r);    // the reference std::min returns, and r itself
  return r;
}
float const_references_float(const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += std::max(x[i], 0.25f) * weigh(s, x[i]);
  return s;
}

// Numbers by rvalue reference the function only reads: taken as values.
double cube_of(double&& a) { return a * a * a; }
double moved_in(double&& x, double y) { return cube_of(x * y) + std::sin(x); }

// A temporary bound to a const reference whose callee's reverse does not read it: the caller's
// reverse evaluates `cos(e + x[i])` again, so `e`, overwritten by each iteration, must be kept
// (it was read as the last iteration's value: fuzz seed 10521).
double copied_then_shifted(const double& a, const double& b) {
  double t = b;
  if (t < -0.2) t -= std::sin(t * a);
  return t;
}
double temporary_to_reference(const double* x, double s, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) {
    double e = std::tanh(s + x[i]);
    acc += std::tanh(copied_then_shifted(s, std::cos(e + x[i])));
  }
  return acc;
}
TEST(ReferenceArguments, temporaries) {
  check("temporary_to_reference", adjoint::gradient(temporary_to_reference), temporary_to_reference, In<double>{4},
        Scalar<double>{}, 4);
}
TEST(ReferenceArguments, const_references) {
  check("const_references", adjoint::gradient(const_references), const_references, In<double>{4}, Scalar<double>{});
  check("const_references_float", adjoint::gradient(const_references_float), const_references_float, In<float>{5}, 5);
}
TEST(ReferenceArguments, local_struct_members) {
  check("local_members", adjoint::gradient(local_members), local_members, Scalar<double>{}, Scalar<double>{});
}
TEST(ReferenceArguments, array_elements) {
  check("elements", adjoint::gradient(elements), elements, InOut<double>{4}, In<double>{5}, 4);
}
TEST(ReferenceArguments, member_of_struct_parameter) {
  Pair p0{0.7, -0.4};
  const double x = 0.3;
  Pair p = p0, dp{0.25, -0.5};  // seeds of p.a and p.b (p is written)
  double dx = 0;
  adjoint::gradient(member_of_parameter).execute(p, x, &dp, &dx);
  // J = f + 0.25 p.a' + -0.5 p.b' with p.a' = a + (x b)^2, p.b' = b, f = p.a' * b.
  const double a = p0.a, b = p0.b, a1 = a + x * b * x * b;
  const double dJ_da1 = b + 0.25;
  EXPECT_NEAR(dp.a, dJ_da1, 1e-12);
  EXPECT_NEAR(dp.b, a1 + dJ_da1 * 2 * x * x * b - 0.5, 1e-12);
  EXPECT_NEAR(dx, dJ_da1 * 2 * x * b * b, 1e-12);
}
TEST(ReferenceArguments, rvalue_references_read) {
  const double x = 0.7, y = -1.3;
  double dx = 0, dy = 0;
  adjoint::gradient(moved_in).execute(0.7, -1.3, &dx, &dy);
  EXPECT_NEAR(dx, 3 * x * x * y * y * y + std::cos(x), 1e-12);
  EXPECT_NEAR(dy, 3 * x * x * x * y * y, 1e-12);
  const double h = 1e-6;
  EXPECT_NEAR(dx, (moved_in(x + h, double(y)) - moved_in(x - h, double(y))) / (2 * h), 1e-6);
}
