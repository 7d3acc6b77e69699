#include <adjoint/ad.hpp>
struct Params { double a, b; };
double weigh(Params p, double t) { return p.a * t + p.b; }
double f(const Params& p, double x) {
  return weigh(p, x) * x;  // error: copying a 'Params' here (passing it by value) is not supported; pass it by const reference
}
void request() { auto g = adjoint::gradient(f); (void)g; }
