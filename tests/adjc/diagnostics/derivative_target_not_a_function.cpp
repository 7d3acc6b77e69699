// A derivative requested of a number, not of anything callable.
#include <adjoint/ad.hpp>
void request() {
  double k = 2;
  auto d = adjoint::derivative(k, "x");  // error: the first argument of adjoint::derivative must name a function, a member function (&S::f), a lambda, a function object or a function pointer adjc follows
  (void)d;
}
