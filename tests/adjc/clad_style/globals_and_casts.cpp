// Constant global tables and scalars read by differentiated code (no derivative), and active
// values cast to integers (zero derivative, as trunc's).
#include <adjoint/ad.hpp>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;

const double kCoefficients[3] = {0.5, -1.0, 2.0};
const double kScale = 1.5;
constexpr double kWeights[2][2] = {{1.0, 0.5}, {-0.25, 2.0}};
static constexpr int kTerms = 3;

double polynomial(double x) {
  double s = 0, power = 1;
  for (int i = 0; i < kTerms; i++) {
    s += kCoefficients[i] * power;
    power *= x;
  }
  return s * kScale;
}
double bilinear(const double* u, const double* v) {
  double s = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) s += u[i] * kWeights[i][j] * v[j];
  return s;
}
double bucketed(double x) {
  int bucket = int(x * 4);  // piecewise constant in x
  const double base = static_cast<long>(x) + bucket * 0.25;
  return base * x + kCoefficients[bucket % 3] * x * x;
}

int main() {
  double x = 0.7, dx = 0;
  adjoint::gradient(polynomial).execute(x, &dx);
  expect_gradient("d polynomial / dx", dx, x, [&] { return polynomial(x); });
  double u[2] = {0.3, -1.2}, v[2] = {2.0, 0.4}, du[2] = {}, dv[2] = {};
  adjoint::gradient(bilinear).execute(u, v, du, dv);
  for (int i = 0; i < 2; i++) {
    expect_gradient("d bilinear / du[i]", du[i], u[i], [&] { return bilinear(u, v); });
    expect_gradient("d bilinear / dv[i]", dv[i], v[i], [&] { return bilinear(u, v); });
  }
  dx = 0;
  adjoint::gradient(bucketed).execute(x, &dx);
  expect_gradient("d bucketed / dx", dx, x, [&] { return bucketed(x); });
  return clad_style::report();
}
