#include <adjoint/ad.hpp>
double square_of(double v) { return v * v; }
double cube_of(double v) { return v * v * v; }
void request(int n) {
  auto fp = &square_of;
  if (n > 1) fp = &cube_of;
  auto g = adjoint::gradient(fp, "v");  // error: the first argument of adjoint::gradient does not resolve to one function: 'fp' is assigned after its initialisation
  (void)g;
}
