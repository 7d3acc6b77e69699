// std::complex<double> and std::complex<float>: locals, parameters (their adjoint a complex
// d/dRe + i d/dIm), arithmetic with complex and real operands, updates in place, the accessors
// and the <complex> functions adjoint/complex.hpp gives pullbacks.
// <complex> after adjoint/ad.hpp, as a unit may include them.
#include <adjoint/ad.hpp>
#include <complex>

#include "check.hpp"

using clad_style::expect_gradient;
using cd = std::complex<double>;
using cf = std::complex<float>;

// The parts of a complex, to perturb one in place.
double& re(cd& z) { return reinterpret_cast<double(&)[2]>(z)[0]; }
double& im(cd& z) { return reinterpret_cast<double(&)[2]>(z)[1]; }

double squared(double x, double y) {
  cd c(x, y);
  c = c * c;
  return c.real() + std::abs(c) + std::norm(c);
}
double set_parts(cd c, double x) {
  c.real(c.real() * x);
  c.imag(c.imag() + x * x);
  return c.imag() * c.real();
}
double arithmetic(const cd& a, cd b, double x) {
  cd s = a + b - x;
  cd p = x * a / b;
  cd q = (x - a) * (b + x) / x;
  cd r = -s + x / p + q * x;
  return std::real(r) + std::imag(r * s);
}
double updates(double x, double y) {
  cd c{x};
  cd d = y;
  c += d;
  c -= x * y;
  c *= cd(y, x);
  c /= d + 2.0;
  c *= x;
  c /= y;
  c += 0.5;
  d -= c;
  if (x > 0) c = y;
  return c.real() * d.imag() + c.imag();
}
double functions(cd z, double x) {
  cd e = std::exp(z * x);
  cd l = std::log(z);
  cd s = std::sqrt(z + x);
  cd p = std::polar(x, z.imag());
  return std::arg(z) + e.real() + l.imag() + std::conj(s).imag() + p.real() * p.imag() + std::abs(s);
}
cd rotate(const cd& z, double angle) { return z * std::polar(1.0, angle); }
double through_calls(double x, double y) {
  cd z = rotate(cd(x, y), x);
  for (int i = 0; i < 3; i++) z = rotate(z, y) + 0.1 * z;
  return std::norm(z) + z.imag();
}
struct Wave {
  cd amplitude;
  double k;
};
double wave(const Wave& w, double t) {
  auto phase = [](cd a, double s) { return a * std::exp(cd(0, s)); };
  return phase(w.amplitude, w.k * t).real();
}
float single(cf z, float x) {
  cf w(x, 2.0f);
  w *= z;
  w += x;
  return std::abs(w) + w.imag() * std::real(z);
}

int main() {
  double x = 0.7, y = -1.3, dx = 0, dy = 0;
  adjoint::gradient(squared).execute(x, y, &dx, &dy);
  expect_gradient("d squared / dx", dx, x, [&] { return squared(x, y); });
  expect_gradient("d squared / dy", dy, y, [&] { return squared(x, y); });

  cd c(1.5, -0.5), dc{};
  dx = 0;
  adjoint::gradient(set_parts).execute(c, x, &dc, &dx);
  expect_gradient("d set_parts / d re c", dc.real(), re(c), [&] { return set_parts(c, x); });
  expect_gradient("d set_parts / d im c", dc.imag(), im(c), [&] { return set_parts(c, x); });
  expect_gradient("d set_parts / dx", dx, x, [&] { return set_parts(c, x); });

  cd a(0.3, 0.8), b(-1.1, 0.4), da{}, db{};
  dx = 0;
  adjoint::gradient(arithmetic).execute(a, b, x, &da, &db, &dx);
  expect_gradient("d arithmetic / d re a", da.real(), re(a), [&] { return arithmetic(a, b, x); });
  expect_gradient("d arithmetic / d im a", da.imag(), im(a), [&] { return arithmetic(a, b, x); });
  expect_gradient("d arithmetic / d re b", db.real(), re(b), [&] { return arithmetic(a, b, x); });
  expect_gradient("d arithmetic / d im b", db.imag(), im(b), [&] { return arithmetic(a, b, x); });
  expect_gradient("d arithmetic / dx", dx, x, [&] { return arithmetic(a, b, x); });

  for (double sign : {1.0, -1.0}) {
    double u = 0.6 * sign, du = 0, dv = 0, v = 1.7;
    adjoint::gradient(updates).execute(u, v, &du, &dv);
    expect_gradient("d updates / dx", du, u, [&] { return updates(u, v); });
    expect_gradient("d updates / dy", dv, v, [&] { return updates(u, v); });
  }

  cd z(0.9, 0.4), dz{};
  dx = 0;
  adjoint::gradient(functions).execute(z, x, &dz, &dx);
  expect_gradient("d functions / d re z", dz.real(), re(z), [&] { return functions(z, x); });
  expect_gradient("d functions / d im z", dz.imag(), im(z), [&] { return functions(z, x); });
  expect_gradient("d functions / dx", dx, x, [&] { return functions(z, x); });

  dx = 0, dy = 0;
  adjoint::gradient(through_calls).execute(x, y, &dx, &dy);
  expect_gradient("d through_calls / dx", dx, x, [&] { return through_calls(x, y); });
  expect_gradient("d through_calls / dy", dy, y, [&] { return through_calls(x, y); });

  Wave w{cd(0.4, -0.9), 1.7}, dw{};
  dx = 0;
  adjoint::gradient(wave).execute(w, x, &dw, &dx);
  expect_gradient("d wave / d re amplitude", dw.amplitude.real(), re(w.amplitude), [&] { return wave(w, x); });
  expect_gradient("d wave / d im amplitude", dw.amplitude.imag(), im(w.amplitude), [&] { return wave(w, x); });
  expect_gradient("d wave / dk", dw.k, w.k, [&] { return wave(w, x); });
  expect_gradient("d wave / dt", dx, x, [&] { return wave(w, x); });

  cf f(0.8f, -0.6f), df{};
  float t = 1.2f, dt = 0;
  adjoint::gradient(single).execute(f, t, &df, &dt);
  float& f_re = reinterpret_cast<float(&)[2]>(f)[0];
  float& f_im = reinterpret_cast<float(&)[2]>(f)[1];
  expect_gradient("d single / d re z", df.real(), f_re, [&] { return single(f, t); });
  expect_gradient("d single / d im z", df.imag(), f_im, [&] { return single(f, t); });
  expect_gradient("d single / dx", dt, t, [&] { return single(f, t); });
  return clad_style::report();
}
