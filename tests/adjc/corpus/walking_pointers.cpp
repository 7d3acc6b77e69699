// Corpus: a pointer walking an array (`p = p + 1`) in a callee, the array a local of the caller
// (found by the random differential tester's forward-mode checks, tests/adjc/fuzz/forward.py, where
// the callee's pushforward is differentiated again). The reverse sweep has its own copy of the
// caller's array, so the pointer is taped as its offset (the address was taped: a wrong gradient);
// the pushforward declares the pointer with its initialiser, so a later stage reads it. Against
// closed forms.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <cmath>

namespace walking_pointers {

void scale_all(double* y, const double* x, int n) {
  double* p = y;
  for (int i = 0; i < n; i++) {
    p[0] = p[0] * std::sin(x[0] * (i + 1));
    p = p + 1;
  }
}
// sum_i y0[i] sin((i + 1) x[0])
double weighted(const double* x, const double* y0, int n) {
  double y[4];
  for (int i = 0; i < n; i++) y[i] = y0[i];
  scale_all(y, x, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i];
  return s;
}

TEST(WalkingPointers, IntoACallersLocalArray) {
  double x[1] = {0.4}, y0[3] = {1.0, -2.0, 0.5}, dx[1] = {0};
  adjoint::gradient(weighted, "x").execute(x, y0, 3, dx);
  double want = 0;
  for (int i = 0; i < 3; i++) want += y0[i] * (i + 1) * std::cos((i + 1) * 0.4);
  EXPECT_NEAR(dx[0], want, 1e-12);
}

TEST(WalkingPointers, InASecondDerivative) {
  double x[1] = {0.4}, y0[3] = {1.0, -2.0, 0.5}, u[1] = {1.0};  // (a direction is taken as double*)
  double want = 0;
  for (int i = 0; i < 3; i++) want -= y0[i] * (i + 1) * (i + 1) * std::sin((i + 1) * 0.4);
  EXPECT_NEAR(adjoint::derivative<2>(weighted, "x").execute(x, y0, 3, u, u), want, 1e-12);
  double hv[1] = {0};
  adjoint::hessian_vector(weighted, "x").execute(x, y0, 3, u, hv);
  EXPECT_NEAR(hv[0], want, 1e-12);
}

}  // namespace walking_pointers
