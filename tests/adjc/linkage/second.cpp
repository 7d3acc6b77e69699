// The other unit of tests/adjc/linkage/first.cpp: a lambda of the same shape, another body.
#include <adjoint/ad.hpp>

double second_unit(double x, double y) {
  auto f = [](double a, double b) { return a + b; };
  return f(x, y) + x;
}

void second_unit_gradient(double x, double y, double* dx, double* dy) {
  adjoint::gradient(second_unit).execute(x, y, dx, dy);
}
