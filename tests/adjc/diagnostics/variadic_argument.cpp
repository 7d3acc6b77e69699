#include <adjoint/ad.hpp>
#include <cstdarg>
// A value carrying a derivative passed through '...' (it was accepted, and its derivative dropped).
double first(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double r = va_arg(ap, double);
  va_end(ap);
  return r;
}
double f(double a, double b) {
  return first(1, a) * b;  // error: call to 'first' passes a value that carries a derivative through '...'
}
void request() { auto g = adjoint::gradient(f); (void)g; }
