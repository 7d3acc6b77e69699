// An error in the requested function itself is followed by the request that asked for it.
#include <adjoint/ad.hpp>
double f(double x) {
  double y = x;
  goto done;  // error: goto is not supported
done:
  return y * y;
}
void request() { auto d = adjoint::gradient(f, "x"); (void)d; }  // note: in the derivative of 'f', requested here
