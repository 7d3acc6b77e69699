#include <complex>
#include <adjoint/ad.hpp>
double f(double x, double y) {
  std::complex<double> c(x, y);
  return (c *= 2.0).real();  // error: 'operator*=' of a std::complex inside an expression is not supported; write it as a statement of its own
}
void request() { auto g = adjoint::gradient(f); (void)g; }
