#include <adjoint/ad.hpp>
void add_square(double& s, double v) { s += v * v; }
double f(double x, double c, int n) {
  double u = c, w = x;
  add_square(n > 0 ? u : w, x);  // error: writes through this argument, which is not a variable or memory adjc tracks
  return u * w;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
