#include <adjoint/ad.hpp>
struct Pair { double a, b; };
struct Nested { Pair p; double w; };
double total(Nested n) { return n.p.a + n.p.b * n.w; }
double f(double x) {
  Nested n = {{x, x * x}, 2.0};  // error: local struct 'n' of type 'Nested' is not supported: a local struct's members must be numbers, pointers or arrays of them
  return total(n);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
