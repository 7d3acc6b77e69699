// Corpus: std::complex<double> and std::complex<float> inside differentiated functions of real
// inputs: complex locals re-assigned in loops (a discrete Fourier term, an iterated map, Horner's
// rule), user functions taking and returning complex values, updates in place, the accessors and
// the <complex> functions. Each gradient against central differences.
#include <complex>

#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace complex_numbers {

using cd = std::complex<double>;
using cf = std::complex<float>;

// |sum_k x[k] e^{-i w k}|^2: the power of one frequency.
double spectrum_power(const double* x, int n, double w) {
  cd sum;
  for (int k = 0; k < n; k++) sum += x[k] * std::exp(cd(0, -w * k));
  return std::norm(sum);
}

// z <- z^2 + c, a few times.
double iterated_map(double cx, double cy) {
  cd c(cx, cy);
  cd z = c;
  for (int i = 0; i < 4; i++) z = z * z + c;
  return std::abs(z) + std::arg(z);
}

// The frequency response of a polynomial at s = i w, by Horner's rule.
double response(const double* coef, int n, double w) {
  cd s{0, w};
  cd h = coef[0];
  for (int k = 1; k < n; k++) {
    h *= s;
    h += coef[k];
  }
  return std::log(std::abs(h)) + std::imag(std::log(h));
}

// A Möbius map of the unit disc, a complex-returning user function of complex values.
cd mobius(cd z, const cd& a) { return (z - a) / (1.0 - std::conj(a) * z); }
double disc_map(double x, double y, double ax) {
  cd a(ax, 0.25);
  cd w = mobius(cd(x, y), a);
  w.imag(w.imag() * ax);
  return w.real() * w.imag() + std::sqrt(w + 2.0).real();
}

float single(const float* x, int n) {
  cf acc(1.0f, 0.0f);
  for (int i = 0; i < n; i++) acc = acc * cf(x[i], 0.5f) / (1.0f + std::abs(acc));
  acc.real(acc.real() - x[0]);
  return std::real(acc) + std::polar(x[1], x[0]).imag();
}

}  // namespace complex_numbers

using namespace complex_numbers;

TEST(Complex, spectrum_power) {
  check("spectrum_power", adjoint::gradient(spectrum_power, "x, w"), spectrum_power, In<double>{6}, 6,
        Scalar<double>{});
}
TEST(Complex, iterated_map) {
  check("iterated_map", adjoint::gradient(iterated_map), iterated_map, Scalar<double>{-0.5, 0.3},
        Scalar<double>{-0.5, 0.5});
}
TEST(Complex, response) {
  check("response", adjoint::gradient(response, "coef, w"), response, In<double>{4, 0.5, 1.5}, 4,
        Scalar<double>{0.2, 1.0});
}
TEST(Complex, disc_map) {
  check("disc_map", adjoint::gradient(disc_map), disc_map, Scalar<double>{-0.5, 0.5}, Scalar<double>{-0.5, 0.5},
        Scalar<double>{-0.5, 0.5});
}
TEST(Complex, single) { check("single", adjoint::gradient(single, "x"), single, In<float>{5, 0.5, 1.5}, 5); }
