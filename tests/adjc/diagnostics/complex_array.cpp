#include <complex>
#include <adjoint/ad.hpp>
double f(double x, double y) {
  std::complex<double> roots[2];  // error: local array of std::complex 'roots' is not supported (a complex is a value, not memory adjc tracks); use one array of real parts and one of imaginary parts
  roots[0] = std::complex<double>(x, y);
  return roots[0].real();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
