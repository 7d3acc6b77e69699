#include <complex>
#include <adjoint/ad.hpp>
double f(float x, float y) {
  std::complex<float> c(x, y);
  std::complex<double> d = c;  // error: converting a 'std::complex<float>' to 'std::complex<double>' is not supported; build it from its parts
  return d.real() * d.imag();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
