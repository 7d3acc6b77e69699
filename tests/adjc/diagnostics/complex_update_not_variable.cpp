#include <complex>
#include <adjoint/ad.hpp>
double f(double x, double y) {
  std::complex<double> c(x, y), d(y, x);
  (x > 0 ? c : d) += 1.0;  // error: 'operator+=' of a std::complex other than a variable is not supported; compute the new value in a local complex variable
  return c.real() + d.imag();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
