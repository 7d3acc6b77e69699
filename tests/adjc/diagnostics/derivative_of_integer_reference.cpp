// A forward request naming an integer parameter by reference: an integer scalar carries a tangent
// when requested (as in Clad), integer memory never does.
#include <adjoint/ad.hpp>
double f(double x, const int& n) { return n * x; }
void request() {
  auto d = adjoint::derivative(f, "n");  // error: parameter 'n' of 'f' is not differentiable (type 'const int &')
  (void)d;
}
