#include <adjoint/ad.hpp>
double sq(double a) { return a * a; }
double apply(double (*fn)(double), double v) {
  double k = 2;
  auto scale = [k](double a) { return a * k; };  // error: adjc differentiates 'apply', which takes a function pointer, as a copy per function its calls pass, and does not copy this construct (LambdaExpr)
  return fn(scale(v));
}
double f(double x) { return apply(sq, x); }
void request() { auto g = adjoint::gradient(f); (void)g; }
