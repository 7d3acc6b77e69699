#include <adjoint/ad.hpp>
struct P { double a, b; };
double f(double x) {
  P* p = new P{x, x};  // error: 'new' of type 'P' ('p') is not supported, only of numbers; use a local struct, or one array per member (docs/adjc.md, "Heap arrays")
  double r = p->a * p->b;
  delete p;
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
