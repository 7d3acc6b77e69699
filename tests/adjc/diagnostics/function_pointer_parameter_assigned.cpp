#include <adjoint/ad.hpp>
double sq(double a) { return a * a; }
double cube(double a) { return a * a * a; }
double apply(double (*fn)(double), double v, int n) {  // error: 'apply' assigns its function-pointer parameter 'fn' (or passes it on by reference), so adjc cannot bind it to the function each call passes
  if (n > 1) fn = cube;
  return fn(v);
}
double f(double x, int n) { return apply(sq, x, n); }
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
