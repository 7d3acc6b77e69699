#include <adjoint/ad.hpp>
#include <complex>
// <complex> after adjoint/ad.hpp, and no <adjoint/complex.hpp>: std::complex is a library class.
double f(std::complex<double> z) {  // error: parameter 'z' has type 'std::complex<double>', which adjc differentiates once the unit includes <adjoint/complex.hpp>
  return z.real() * z.imag();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
