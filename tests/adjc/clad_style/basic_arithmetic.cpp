// Sums, products, quotients and unary minus of two and three arguments.
#include <adjoint/ad.hpp>

#include "check.hpp"

using clad_style::expect_gradient;

double f_add(double x, double y) { return x + y + 2 * x; }
double f_mul(double x, double y, double z) { return x * y * z - x * x; }
double f_div(double x, double y) { return (x + 1) / (y * y + 1) - x / 3; }
double f_neg(double x, double y) { return -x * -(y - x) + -(-y); }
float f_mixed(float x, double y) { return x * y / (x * x + 1.0f); }

int main() {
  double x = 1.5, y = -0.7, z = 2.25, dx = 0, dy = 0, dz = 0;
  adjoint::gradient(f_add).execute(x, y, &dx, &dy);
  expect_gradient("d f_add / dx", dx, x, [&] { return f_add(x, y); });
  expect_gradient("d f_add / dy", dy, y, [&] { return f_add(x, y); });
  dx = dy = 0;
  adjoint::gradient(f_mul).execute(x, y, z, &dx, &dy, &dz);
  expect_gradient("d f_mul / dx", dx, x, [&] { return f_mul(x, y, z); });
  expect_gradient("d f_mul / dy", dy, y, [&] { return f_mul(x, y, z); });
  expect_gradient("d f_mul / dz", dz, z, [&] { return f_mul(x, y, z); });
  dx = dy = 0;
  adjoint::gradient(f_div, "x, y").execute(x, y, &dx, &dy);
  expect_gradient("d f_div / dx", dx, x, [&] { return f_div(x, y); });
  expect_gradient("d f_div / dy", dy, y, [&] { return f_div(x, y); });
  dy = 0;
  adjoint::gradient(f_neg, "y").execute(x, y, &dy);
  expect_gradient("d f_neg / dy", dy, y, [&] { return f_neg(x, y); });
  dy = 0;  // Clad's spelling by position: "1" is y
  adjoint::gradient(f_neg, "1").execute(x, y, &dy);
  expect_gradient("d f_neg / d parameter 1", dy, y, [&] { return f_neg(x, y); });
  float xf = 0.8f, dxf = 0;
  double dyd = 0;
  adjoint::gradient(f_mixed).execute(xf, y, &dxf, &dyd);
  expect_gradient("d f_mixed / dx", dxf, xf, [&] { return f_mixed(xf, y); });
  expect_gradient("d f_mixed / dy", dyd, y, [&] { return f_mixed(xf, y); });
  return clad_style::report();
}
