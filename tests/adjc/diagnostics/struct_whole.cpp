#include <adjoint/ad.hpp>
struct Pair { double a, b; };
double sum(Pair p) { return p.a + p.b; }
double f(double x) {
  Pair p = {x, x * x};  // error: local struct 'p' is used as a whole
  return sum(p);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
