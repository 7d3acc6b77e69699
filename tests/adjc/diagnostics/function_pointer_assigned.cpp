#include <adjoint/ad.hpp>
double square_of(double v) { return v * v; }
double cube_of(double v) { return v * v * v; }
double f(double x, int n) {
  double (*g)(double) = square_of;  // error: function pointer 'g' must be initialised with a function (f or &f) and never assigned
  if (n > 1) g = cube_of;
  return g(x);
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
