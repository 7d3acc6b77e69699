#include <adjoint/ad.hpp>
double sq(double a) { return a * a; }
double cube(double a) { return a * a * a; }
double apply(double (*fn)(double), double v) { return fn(v); }
double f(double x, int n) {
  return apply(n > 1 ? sq : cube, x);  // error: the argument for function-pointer parameter 'fn' of 'apply' must name a function (f or &f, or a local function pointer initialised with one and never assigned)
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
