// The finite-difference harness itself must be able to fail: a wrong gradient is reported.
#include <gtest/gtest-spi.h>

#include "gradcheck.hpp"

using namespace gradcheck;

double cube(double x) { return x * x * x; }

struct WrongGradient {
  void execute(double x, double* d_x) const { *d_x += 2 * x * x; }  // should be 3x^2
};
struct MissingGradient {
  void execute(const double*, int, double*) const {}
};
double sum_squares(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

// Failures the harness reports while `f` runs, intercepted.
template <class F>
int failures(F f) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
  }
  return results.size();
}

TEST(Harness, reports_wrong_gradient) {
  EXPECT_EQ(failures([] { check("cube", WrongGradient{}, cube, Scalar<double>{0.5, 1.5}); }), 3);  // every trial
}
TEST(Harness, reports_missing_gradient) {
  EXPECT_EQ(failures([] { check("sum_squares", MissingGradient{}, sum_squares, In<double>{3}, 3); }), 9);
}
