// Custom derivatives in the forms Clad's users write them: pullback templates (for a function
// template, a plain function, a static member function template in class_functions, a non-type
// template argument), the derivative of a library call adjc has no rule for, and gradients of
// constexpr functions.
#include <adjoint/ad.hpp>

#include <cmath>

#include "check.hpp"

using clad_style::expect_gradient;
using clad_style::expect_value;

namespace {
int pullback_calls = 0;
}

// J0, whose derivative is -J1: adjc has no rule for std::cyl_bessel_j, the pullback supplies it.
template <class T>
T bessel0(T x) {
  return std::cyl_bessel_j(T(0), x);
}
double bessel_scaled(double x) { return std::cyl_bessel_j(0.0, x) * 2; }
struct Arithmetic {
  template <class T>
  static T multiply(T x, T y) {
    return x * y;
  }
};
// Steps of height N: piecewise constant as adjc sees it, a slope of N as its pullback says.
template <int N>
double staircase(double x) {
  return std::floor(x) * N;
}

namespace adjoint::custom_derivatives {
template <class T>
void bessel0_pullback(T x, T d_result, T* d_x) {
  *d_x -= d_result * std::cyl_bessel_j(T(1), x);
}
template <class T>
void bessel_scaled_pullback(T x, T d_result, T* d_x) {
  *d_x -= 2 * d_result * std::cyl_bessel_j(T(1), x);
}
template <int N>
void staircase_pullback(double, double d_result, double* d_x) {
  *d_x += N * d_result;
}
namespace class_functions {
template <class T>
void multiply_pullback(T x, T y, T d_result, T* d_x, T* d_y) {
  ++pullback_calls;
  *d_x += d_result * y;
  *d_y += d_result * x;
}
}  // namespace class_functions
}  // namespace adjoint::custom_derivatives

double waves(double x, double y) { return bessel0(x * y) + bessel_scaled(y); }
float waves_float(float x) { return bessel0(x) * x; }
double products(double x, double y) { return Arithmetic::multiply(x, y) + Arithmetic::multiply(x, x); }
double stairs(double x) { return staircase<3>(x) + staircase<5>(x); }

constexpr double larger(double a, double b) {
  if (a > b) return a * a;
  return a * b;
}
constexpr double triple_product(double a, double b, double c) { return a * b * c; }

int main() {
  double x = 0.8, y = 1.3, dx = 0, dy = 0;
  adjoint::gradient(waves).execute(x, y, &dx, &dy);
  expect_gradient("d waves / dx", dx, x, [&] { return waves(x, y); });
  expect_gradient("d waves / dy", dy, y, [&] { return waves(x, y); });
  float xf = 1.1f, dxf = 0;
  adjoint::gradient(waves_float).execute(xf, &dxf);
  expect_gradient("d waves_float / dx", dxf, xf, [&] { return waves_float(xf); });
  dx = dy = 0;
  adjoint::gradient(products).execute(x, y, &dx, &dy);
  expect_gradient("d products / dx", dx, x, [&] { return products(x, y); });
  expect_gradient("d products / dy", dy, y, [&] { return products(x, y); });
  expect_value("multiply_pullback calls", pullback_calls, 2);
  // Finite differences of a staircase are 0: the pullback's slope is checked as a value.
  dx = 0;
  adjoint::gradient(stairs).execute(x, &dx);
  expect_value("d stairs / dx", dx, 8);
  // Constexpr functions, differentiated at run time (a request may not be written in one).
  static_assert(larger(5, 3) == 25);
  double a = 5, b = 3, da = 0, db = 0;
  adjoint::gradient(larger).execute(a, b, &da, &db);
  expect_gradient("d larger / da", da, a, [&] { return larger(a, b); });
  expect_gradient("d larger / db", db, b, [&] { return larger(a, b); });
  double c = 2;
  da = db = 0;
  adjoint::gradient(triple_product, "b").execute(a, b, c, &db);
  expect_gradient("d triple_product / db", db, b, [&] { return triple_product(a, b, c); });
  return clad_style::report();
}
