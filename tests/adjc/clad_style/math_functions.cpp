// <cmath> functions in their std:: and C spellings, double and float.
#include <adjoint/ad.hpp>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;

double mix(double x, double y) {
  return std::exp(x) * std::sin(y) + std::log(x * x + 1) - std::sqrt(y * y + 2) + std::pow(x, 3.0) + std::tanh(x * y) +
         std::cos(x) * std::fabs(y);
}
float mixf(float x) { return expf(x) * sinf(x) + sqrtf(x * x + 1) + tanhf(x); }
// Remainders, scaling by 2^e and rounding; names found through using-declarations.
double remainders(double x, double y, int e) {
  using namespace std;
  using std::fdim;
  return fmod(x * 3, y) + std::remainder(x * 5, y) + fdim(x, 0.2) + fdim(0.1, x) + std::ldexp(x * y, e) +
         std::scalbn(y, 2) + std::rint(x) * y + std::nearbyint(y) * x;
}
double softplus_sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += std::log(1 + std::exp(x[i]));
  return s;
}

int main() {
  double x = 0.45, y = -1.3, dx = 0, dy = 0;
  adjoint::gradient(mix).execute(x, y, &dx, &dy);
  expect_gradient("d mix / dx", dx, x, [&] { return mix(x, y); });
  expect_gradient("d mix / dy", dy, y, [&] { return mix(x, y); });
  float xf = 0.7f, dxf = 0;
  adjoint::gradient(mixf).execute(xf, &dxf);
  expect_gradient("d mixf / dx", dxf, xf, [&] { return mixf(xf); });
  double a = 0.45, b = 1.3, da = 0, db = 0;
  adjoint::gradient(remainders, "x, y").execute(a, b, 3, &da, &db);
  expect_gradient("d remainders / dx", da, a, [&] { return remainders(a, b, 3); });
  expect_gradient("d remainders / dy", db, b, [&] { return remainders(a, b, 3); });
  double v[3] = {0.1, -2, 1.5}, dv[3] = {};
  adjoint::gradient(softplus_sum, "x").execute(v, 3, dv);
  for (int i = 0; i < 3; i++) expect_gradient("d softplus_sum / dx[i]", dv[i], v[i], [&] { return softplus_sum(v, 3); });
  return clad_style::report();
}
