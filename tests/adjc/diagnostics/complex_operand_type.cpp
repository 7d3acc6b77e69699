#include <complex>
#include <adjoint/ad.hpp>
double f(double x, float y) {
  std::complex<double> c(x, x);
  c += std::complex<float>(y, y);  // error: 'operator+=' with an operand of type 'std::complex<float>' on a 'std::complex<double>' is not supported; convert it to 'double' or 'std::complex<double>' first
  return c.real();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
