// Forward mode of a call whose custom pushforward returns a struct that carries a derivative: not
// supported yet (a generated pushforward returns the struct with its tangent).
#include <adjoint/ad.hpp>
struct P {
  double a, b;
};
P make(double x) { return P{x, 2 * x}; }
namespace adjoint::custom_derivatives {
inline P make_pushforward(double x, double) { return P{x, 2 * x}; }
}  // namespace adjoint::custom_derivatives
double f(double x) {
  P p = make(x);  // error: forward mode (adjoint::derivative) does not differentiate a call whose result of type 'P' carries a derivative yet
  return p.a * p.b;
}
void request() { auto d = adjoint::derivative(f, "x"); (void)d; }
