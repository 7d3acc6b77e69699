#include <adjoint/ad.hpp>
double sq(double v) { return v * v; }
double (*op)(double) = sq;
double f(double x) {
  return op(x) + x;  // error: calls through function pointers are supported only through a local one initialised with a function and never assigned, or a parameter of a function (not a member function) that every call passes a function (f or &f) to
}
void request() { auto g = adjoint::gradient(f); (void)g; }
