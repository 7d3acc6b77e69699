// Forward mode of a lambda is not supported yet.
#include <adjoint/ad.hpp>
void request() {
  auto f = [](double x) { return x * x; };
  auto d = adjoint::derivative(f, "x");  // error: adjoint::derivative takes a function or member function by name (f, &f, &S::f); lambdas, function objects and function pointers are not supported in forward mode yet
  (void)d;
}
