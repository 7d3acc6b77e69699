// Forward mode in a struct parameter is not supported yet.
#include <adjoint/ad.hpp>
struct P {
  double a, b;
};
double f(P p) { return p.a * p.b; }
void request() {
  auto d = adjoint::derivative(f, "p");  // error: forward mode differentiates with respect to a floating scalar or an array of them; parameter 'p' has type 'P'
  (void)d;
}
