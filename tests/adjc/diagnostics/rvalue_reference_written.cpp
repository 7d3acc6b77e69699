#include <adjoint/ad.hpp>
double f(double&& x, double y) {  // error: parameter 'x' is a number by rvalue reference that the function writes, which is not supported; take it by value
  x *= 2;
  return x * y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
