#include <complex>
#include <adjoint/ad.hpp>
// A <complex> function adjoint/complex.hpp gives no pullback.
double f(double x, double y) {
  std::complex<double> c(x, y);
  return std::pow(c, y).real();  // error: call to library function 'std::pow', which adjc has no derivative rule for
}
void request() { auto g = adjoint::gradient(f); (void)g; }
