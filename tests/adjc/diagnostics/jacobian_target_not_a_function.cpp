// A lambda as the requested function of a Jacobian.
#include <adjoint/ad.hpp>
void request() {
  auto f = [](double x, double* y) { y[0] = x * x; };
  auto j = adjoint::jacobian(f);  // error: adjoint::jacobian takes a function by name (f, &f); member functions, lambdas, function objects and function pointers are not supported yet
  (void)j;
}
