#include <adjoint/ad.hpp>
#include <complex>
double magnitude(const std::complex<double>& z) {  // error: parameter 'z' has type 'const std::complex<double> &', a library class adjc does not differentiate; pass its elements as a pointer and a length (such as 'const double* x, int n')
  return z.real() * z.real() + z.imag() * z.imag();
}
void request() { auto g = adjoint::gradient(magnitude); (void)g; }
