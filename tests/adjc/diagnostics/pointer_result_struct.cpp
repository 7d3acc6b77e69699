#include <adjoint/ad.hpp>
struct Pair { double a, b; };
Pair* next_pair(Pair* p, int k) { return p + k; }
double f(Pair* p) {
  return next_pair(p, 1)->a * p->b;  // error: the pointer 'next_pair' returns is not supported: it points to 'Pair', not to numbers
}
void request() { auto g = adjoint::gradient(f); (void)g; }
