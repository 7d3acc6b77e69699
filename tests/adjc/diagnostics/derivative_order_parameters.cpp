// A derivative of order N names one parameter or N of them (a mixed derivative), nothing else.
#include <adjoint/ad.hpp>
double f(double x, double y, double z) { return x * y * z; }
void request() {
  auto d = adjoint::derivative<2>(f, "x, y, z");  // error: a derivative of order 2 names 3 parameters; name one (each derivative along it) or 2
  (void)d;
}
