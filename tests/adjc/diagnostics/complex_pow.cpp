#include <complex>
#include <adjoint/ad.hpp>
// A <complex> function adjoint/complex.hpp gives no pullback.
double f(double x, double y) {
  std::complex<double> c(x, y);
  return std::pow(c, y).real();  // error: no derivative for this call: library function 'std::pow' has no derivative rule in adjc
}
void request() { auto g = adjoint::gradient(f); (void)g; }
