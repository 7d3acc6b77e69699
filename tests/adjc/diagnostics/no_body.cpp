#include <adjoint/ad.hpp>
double mystery(double x);
double f(double x) {
  return mystery(x) * 2;  // error: no derivative for this call: 'mystery' has no body and no custom pullback
}
void request() { auto g = adjoint::gradient(f); (void)g; }
