#include <adjoint/ad.hpp>
double sq(double v) { return v * v; }
double (*op)(double) = sq;
double f(double x) {
  return op(x) + x;  // error: calls through function pointers are not supported, except through a local one initialised with a function and never assigned
}
void request() { auto g = adjoint::gradient(f); (void)g; }
