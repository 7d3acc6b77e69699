// Corpus: lambdas without captures called in an `if` condition (the call runs as it is, on the
// lambda expression: its closure cannot be named in generated code) and lambdas declared but
// never called. (Both found by tests/adjc/fuzz: the first printed a call of an undeclared
// `::lam`, the second was rejected as a struct initialised in an unsupported way.) Calls without
// derivative work (constant arguments, a result that reaches nothing) still run the lambda's
// forward, which pushes: their reverse must pop it (it did not, and later pops read wrong values).
#include <adjoint/ad.hpp>

#include <cmath>

#include "gradcheck.hpp"

using namespace gradcheck;

void lambda_in_condition(double* y, const double* x, int n) {
  auto dot2 = [](const double* p, double a) { return p[0] * a + p[1]; };
  for (int i = 0; i < n; i++) {
    if (dot2(x + i, 0.5) > 0.1) y[i] = y[i] * x[i];
    else y[i] += dot2(x + i, y[i]);
  }
}
double unused_lambda(double x, double y) {
  [[maybe_unused]] auto never = [](double a, double b) { return a / b; };
  auto square = [](double a) { return a * a; };
  return square(x) * y;
}
double lambda_without_derivatives(const double* x, int n) {
  auto lam = [](double a, double b) {
    double u = std::tanh(b);
    b = std::cosh(a * u);  // overwrites a parameter: the forward pushes its old value
    return b;
  };
  double s = 0;
  for (int i = 0; i < n; i++) {
    double k = lam(0.5, 2.0);
    double unused = lam(x[i], std::sqrt(x[i] - 10.0));  // NaN partials, a zero adjoint
    (void)unused;
    s += k * x[i] * x[i];
  }
  return s;
}

TEST(LambdaUses, lambda_in_condition) {
  check("lambda_in_condition", adjoint::gradient(lambda_in_condition), lambda_in_condition, InOut<double>{6},
        In<double>{7}, 6);
}
TEST(LambdaUses, unused_lambda) {
  check("unused_lambda", adjoint::gradient(unused_lambda), unused_lambda, Scalar<double>{}, Scalar<double>{});
}
TEST(LambdaUses, lambda_without_derivatives) {
  check("lambda_without_derivatives", adjoint::gradient(lambda_without_derivatives), lambda_without_derivatives,
        In<double>{4}, 4);
}

// A lambda without captures whose body has a call in a conditional (lowered into a temporary),
// called in an `if` condition, where it runs as written: generated code prints it from its source.
double shifted_product(double a, double b) { return a * b + 0.5; }
double lowered_lambda_in_condition(double x, double y) {
  auto soft = [](double a, double b) {
    a -= std::tanh(a < 0.0 ? shifted_product(0.75, b) + a : b);
    return a * b;
  };
  double h = soft(x, y);
  if (soft(h, y) < 0.5) h *= x;
  return h * y;
}
TEST(LambdaUses, lowered_lambda_in_condition) {
  check("lowered_lambda_in_condition", adjoint::gradient(lowered_lambda_in_condition), lowered_lambda_in_condition, Scalar<double>{},
        Scalar<double>{});
}
