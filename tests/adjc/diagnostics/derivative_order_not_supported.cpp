// A derivative's order must be between 1 and 8 (each order is one stage of generation).
#include <adjoint/ad.hpp>
double f(double x) { return x * x * x; }
void request() {
  auto d = adjoint::derivative<9>(f, "x");  // error: a derivative of order 9 was requested; the order must be between 1 and 8
  (void)d;
}
