// Two translation units, each differentiating a lambda of the same shape (double, double) -> double
// with another body, linked into one program built without inlining (-O0): their generated
// functions, which are inline, must not share a name (they did: `lambda1_forward` in each unit,
// and the linker kept one of them for both).
#include <adjoint/ad.hpp>

#include <gtest/gtest.h>

double second_unit(double x, double y);
void second_unit_gradient(double x, double y, double* dx, double* dy);

double first_unit(double x, double y) {
  auto f = [](double a, double b) { return a * b; };
  return f(x, y) * x;
}

TEST(Linkage, lambdas_of_two_units) {
  double dx = 0, dy = 0;
  adjoint::gradient(first_unit).execute(1.5, 0.7, &dx, &dy);
  EXPECT_DOUBLE_EQ(dx, 2 * 1.5 * 0.7);
  EXPECT_DOUBLE_EQ(dy, 1.5 * 1.5);
  dx = dy = 0;
  second_unit_gradient(1.5, 0.7, &dx, &dy);
  EXPECT_DOUBLE_EQ(dx, 2.0);
  EXPECT_DOUBLE_EQ(dy, 1.0);
}
