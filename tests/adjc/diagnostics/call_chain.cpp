// An error found while differentiating a callee names the calls that led to it, innermost first,
// then the request.
#include <adjoint/ad.hpp>
double h(double x) {
  double y = x;
  goto done;  // error: goto is not supported
done:
  return y * y;
}
double g(double x) { return 2 * h(x); }  // note: in the derivative of 'h', called from 'g'
double f(double x) { return g(x) + 1; }  // note: in the derivative of 'g', called from 'f'
void request() { auto d = adjoint::gradient(f, "x"); (void)d; }  // note: in the derivative of 'f', requested here
