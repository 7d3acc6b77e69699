// Corpus: calls that run only on some paths — in a branch of `c ? a : b`, in the right operand
// of `&&` and `||` — run only there (adjc lowers them to if/else on a temporary, never hoisting
// them out of their condition); recursion ended by a conditional.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

double square_first(const double* p) { return p[0] * p[0]; }
// h(nullptr) would crash: the call must run only when n > 0.
double guarded(double x, const double* p, int n) { return n > 0 ? x * square_first(p) : x; }
double power(double x, int n) { return n == 0 ? 1.0 : x * power(x, n - 1); }
double positive_part(double x) { return x > 0 ? x : 0.0; }
// `&&`, `||` with calls on the right; the conditions' calls run only when the left side lets them.
double logical(double x, const double* p, int n) {
  bool both = n > 0 && square_first(p) > 0.25;
  bool either = n <= 0 || positive_part(p[0] - x) > 0;
  return (both ? x * 2 : x) + (either ? x * x : 1.0);
}
// Nested conditionals with calls on both sides, in a loop, and in a call's argument.
void nested_calls(double* y, const double* x, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] > 0 ? (i % 2 == 0 ? power(x[i], 2) : positive_part(x[i]) * 3) : power(x[i], 3) + 1;
}
double argument(double x, int n) { return power(n > 1 ? power(x, 2) : x, 2); }
float guarded_f(float x, const float* p, int n) { return n > 0 ? x * p[0] * power(x, 2) : x; }

TEST(Branches, guarded_skips_the_call) {
  double dx = 0;
  adjoint::gradient(guarded, "x").execute(1.5, nullptr, 0, &dx);
  EXPECT_EQ(dx, 1.0);
}
TEST(Branches, guarded) {
  auto g = adjoint::gradient(guarded, "x, p");
  check("guarded", g, guarded, Scalar<double>{}, In<double>{1}, 1);
}
TEST(Branches, recursion) {
  auto g = adjoint::gradient(power, "x");
  check("recursion", g, power, Scalar<double>{0.5, 2}, 5);
  double dx = 0;
  adjoint::gradient(power, "x").execute(1.5, 3, &dx);
  EXPECT_NEAR(dx, 3 * 1.5 * 1.5, 1e-12);
}
TEST(Branches, logical) {
  auto g = adjoint::gradient(logical, "x, p");
  check("logical", g, logical, Scalar<double>{}, In<double>{1}, 1);
  double dx = 0;  // n == 0: neither right operand runs (p is null)
  adjoint::gradient(logical, "x").execute(0.5, nullptr, 0, &dx);
  EXPECT_EQ(dx, 2 * 0.5 + 1);
}
TEST(Branches, nested_calls) {
  auto g = adjoint::gradient(nested_calls);
  check("nested_calls", g, nested_calls, Out<double>{6}, In<double>{6}, 6);
}
TEST(Branches, argument) {
  auto g = adjoint::gradient(argument, "x");
  check("argument_2", g, argument, Scalar<double>{}, 2);
  check("argument_1", g, argument, Scalar<double>{}, 1);
}
TEST(Branches, guarded_f) {
  auto g = adjoint::gradient(guarded_f, "x, p");
  check("guarded_f", g, guarded_f, Scalar<float>{}, In<float>{1}, 1);
}
