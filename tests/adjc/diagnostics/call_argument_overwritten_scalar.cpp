#include <adjoint/ad.hpp>
#include <cmath>
// The reverse evaluates tanh(g) again for the pullback, after the call has replaced g.
void update(double& o, double a) { o = o * std::cos(o) + a; }
double f(double x) {
  double g = x * x;
  update(g, std::tanh(g));  // error: an argument reads 'g', which the call to 'update' overwrites; copy the value into a local first
  return g;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
