// Forward mode of a lambda is not supported yet.
#include <adjoint/ad.hpp>
void request() {
  auto f = [](double x) { return x * x; };
  auto d = adjoint::derivative(f, "x");  // error: adjoint::derivative takes a function or member function (f, &f, &S::f, a function pointer adjc follows, or a function object's variable); lambdas are not supported in forward mode yet
  (void)d;
}
