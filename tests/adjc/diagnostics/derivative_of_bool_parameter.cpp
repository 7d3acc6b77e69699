// A forward request naming a bool parameter: integers carry a tangent when requested (as in Clad),
// a bool never does.
#include <adjoint/ad.hpp>
double f(double x, bool flip) { return flip ? -x : x; }
void request() {
  auto d = adjoint::derivative(f, "flip");  // error: parameter 'flip' of 'f' is not differentiable (type 'bool')
  (void)d;
}
