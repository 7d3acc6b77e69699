#include <adjoint/ad.hpp>
double f(double x, double y) {
  auto bump = [&x](double v) { x += v * v; };  // error: the lambda writes parameter 'x', which it captures by reference; this is not supported: copy it into a local and capture the local
  bump(y);
  return x * y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
