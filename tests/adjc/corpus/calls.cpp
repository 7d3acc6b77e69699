// Corpus: calls to user functions (pullbacks generated recursively), custom pullbacks, integer
// and bool parameters.
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

double square(double x) { return x * x; }
double poly(double x, double y) { return square(x) * y + square(y + 1); }
double twice_nested(double x) { return square(square(x) + x); }

double weighted(const double* w, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * x[i];
  return s;
}
double two_calls(const double* w, const double* x, int n) { return weighted(w, x, n) * weighted(x, x, n); }

void linear(double* out, const double* w, const double* x, int n) {
  for (int i = 0; i < n; i++) out[i] = w[i] * x[i] + 1;
}
double call_statement(const double* w, const double* x, double* tmp, int n) {
  linear(tmp, w, x, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += tmp[i] * tmp[i];
  return s;
}

double in_loop(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += square(x[i]) * x[i];
  return s;
}

double scaled(double x, int k, bool flip) { return flip ? -x * k : x * k; }
double int_bool_args(double x) { return scaled(x, 3, true) + scaled(x * x, 2, false); }

int count_positive(const double* x, int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > 0) c++;
  return c;
}
double uses_int_result(const double* x, int n) { return x[0] * count_positive(x, n); }

double fact_like(double x, int n) {
  if (n <= 0) return 1.0;
  return x * fact_like(x, n - 1);
}

// A function whose derivative is supplied by hand.
double softclip(double x) { return x / (1 + std::fabs(x)); }
void rownorm(double* out, const double* x, int n);  // no body here: the custom pullback is all adjc needs
void rownorm(double* out, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  for (int i = 0; i < n; i++) out[i] = x[i] / std::sqrt(s);
}
int custom_calls = 0;
namespace adjoint::custom_derivatives {
void softclip_pullback(double x, double d_result, double* d_x) {
  ++custom_calls;
  double a = 1 + std::fabs(x);
  *d_x += d_result / (a * a);
}
void rownorm_pullback(double* out, const double* x, int n, double* d_out, double* d_x) {
  ++custom_calls;
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  double r = std::sqrt(s), dot = 0;
  for (int i = 0; i < n; i++) dot += d_out[i] * out[i];
  if (d_x)
    for (int i = 0; i < n; i++) d_x[i] += (d_out[i] - out[i] * dot) / r;
  for (int i = 0; i < n; i++) d_out[i] = 0;
}
}  // namespace adjoint::custom_derivatives
double uses_custom(double x, double y) { return softclip(x * y) * y; }
double uses_custom_array(const double* x, double* tmp, int n) {
  rownorm(tmp, x, n);
  return tmp[0] * 3 + tmp[1] * tmp[2];
}

TEST(Calls, poly) { auto g = adjoint::gradient(poly); check("poly", g, poly, Scalar<double>{}, Scalar<double>{}); }
TEST(Calls, twice_nested) { auto g = adjoint::gradient(twice_nested); check("twice_nested", g, twice_nested, Scalar<double>{}); }
TEST(Calls, two_calls) {
  auto g = adjoint::gradient(two_calls, "w,x");
  check("two_calls", g, two_calls, In<double>{4}, In<double>{4}, 4);
}
TEST(Calls, two_calls_partial) {
  auto g = adjoint::gradient(two_calls, "w");
  check("two_calls", g, two_calls, In<double>{4}, Const<double>{4}, 4);
}
TEST(Calls, call_statement) {
  auto g = adjoint::gradient(call_statement, "w,x,tmp");
  check("call_statement", g, call_statement, In<double>{4}, In<double>{4}, Out<double>{4}, 4);
}
TEST(Calls, in_loop) { auto g = adjoint::gradient(in_loop, "x"); check("in_loop", g, in_loop, In<double>{5}, 5); }
TEST(Calls, int_bool_args) { auto g = adjoint::gradient(int_bool_args); check("int_bool_args", g, int_bool_args, Scalar<double>{}); }
TEST(Calls, uses_int_result) {
  auto g = adjoint::gradient(uses_int_result, "x");
  check("uses_int_result", g, uses_int_result, In<double>{5}, 5);
}
TEST(Calls, recursion) { auto g = adjoint::gradient(fact_like, "x"); check("fact_like", g, fact_like, Scalar<double>{}, 4); }
TEST(Calls, custom_scalar) {
  custom_calls = 0;
  auto g = adjoint::gradient(uses_custom);
  check("uses_custom", g, uses_custom, Scalar<double>{}, Scalar<double>{});
  EXPECT_EQ(custom_calls, 3);  // one per checked point
}
TEST(Calls, custom_array) {
  custom_calls = 0;
  auto g = adjoint::gradient(uses_custom_array, "x,tmp");
  check("uses_custom_array", g, uses_custom_array, In<double>{4, 0.5, 1.5}, Out<double>{4}, 4);
  EXPECT_EQ(custom_calls, 3);
}
// Generated pullbacks are inline functions with documented signatures (docs/adjc.md).
inline void square_pullback(double x, double d_result, double* d_x);
TEST(Calls, pullback_by_name) {
  // Generated pullbacks can be called directly: f_pullback(args, d_result, adjoints...).
  double dx = 0;
  square_pullback(3.0, 2.0, &dx);
  EXPECT_DOUBLE_EQ(dx, 12.0);
}

#include "model.hpp"

TEST(Calls, function_from_header) {
  auto g = adjoint::gradient(header_model, "w");
  check("header_model", g, header_model, In<double>{2}, Fixed<double>{0.7});
}
TEST(Calls, source_is_the_generated_code) {
  auto g = adjoint::gradient(poly);
  std::string source = g.source();
  EXPECT_NE(source.find("void poly_grad(double x, double y, double* _d_x, double* _d_y)"), std::string::npos) << source;
  EXPECT_NE(source.find("poly_reverse"), std::string::npos);
  EXPECT_NE(source.find("square_reverse"), std::string::npos);  // callees' code is included
  EXPECT_EQ(source.find("#line"), std::string::npos);
}

// A callee that updates its argument in place, called repeatedly: its own tape restores it.
void damp(double* x, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i] * 0.5 + 0.1;
}
double repeated_in_place(double* x, int n) {
  for (int k = 0; k < 3; k++) damp(x, n);
  return x[0] + x[1] * x[2];
}

TEST(Calls, repeated_in_place) {
  auto g = adjoint::gradient(repeated_in_place);
  check("repeated_in_place", g, repeated_in_place, InOut<double>{3, 0.2, 0.9}, 3);
}

// A call whose result is taped (it is overwritten in later iterations: the call sits in a branch)
// and whose callee pushes values of its own (w): the old result goes on the tape after the
// callee's values, so the reverse pops it first and the pullback then gets its own.
double doubled_square(double a) {
  double w = a * 2.0;
  return w * w;
}
void call_in_branch(double* y, const double* x, int n) {
  for (int j = 0; j < n; j++)
    if (j < 10) y[j] = doubled_square(x[j]) * x[j];
}
TEST(Calls, call_in_branch) {
  auto g = adjoint::gradient(call_in_branch);
  check("call_in_branch", g, call_in_branch, Out<double>{4}, In<double>{4}, 4);
}

// A call in a condition: its value only picks the branch (the reverse replays the recorded one),
// so it is evaluated, not differentiated.
double call_in_condition(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (square(x[i]) < 0.25) s += x[i] * x[i];
    else s += 3 * x[i];
  }
  while (square(s) > 100) s = s / 2;
  return s;
}
TEST(Calls, call_in_condition) {
  auto g = adjoint::gradient(call_in_condition);
  check("call_in_condition", g, call_in_condition, In<double>{7}, 7);
}
