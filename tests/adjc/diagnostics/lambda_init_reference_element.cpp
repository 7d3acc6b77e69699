#include <adjoint/ad.hpp>
double f(double x) {
  double v[2] = {x, 2 * x};
  auto first = [&r = v[0]](double t) { return r * t; };  // error: a lambda's init-capture by reference ('&r = ...') of something other than a variable is not supported; capture the variable holding it by reference and name the element or member in the lambda's body
  return first(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
