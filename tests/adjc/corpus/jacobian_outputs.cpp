// Corpus: a Jacobian's outputs as execute finds them. Outputs f only assigns may be uninitialised (they
// are neither read nor restored: g++ -O1 -Wall warned -Wmaybe-uninitialized in the caller when
// execute copied them); outputs f reads are restored before every sweep. Against closed forms.
#include <gtest/gtest.h>

#include <adjoint/ad.hpp>
#include <cmath>

namespace jacobian_outputs {

void ring(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = std::sin(x[i]) * x[(i + 1) % n];
}
void accumulate(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] += x[i] * x[i];
}

TEST(JacobianOutputs, OutputsOnlyAssignedMayBeUninitialised) {
  auto j = adjoint::jacobian(ring, "x");
  const double x[4] = {0.1, -0.7, 1.3, 0.4};
  double y[4];  // not initialised: ring only assigns it
  for (bool forward : {true, false}) {
    adjoint::matrix<double> J(4, 4);
    if (forward) j.execute_forward(x, y, 4, J);
    else j.execute_reverse(x, y, 4, J);
    for (int i = 0; i < 4; ++i) {
      const int next = (i + 1) % 4;
      EXPECT_NEAR(y[i], std::sin(x[i]) * x[next], 1e-15);
      for (int k = 0; k < 4; ++k) {
        const double want = (k == i ? std::cos(x[i]) * x[next] : 0) + (k == next ? std::sin(x[i]) : 0);
        EXPECT_NEAR(J[i][k], want, 1e-15) << "row " << i << ", column " << k << (forward ? " (forward)" : " (reverse)");
      }
    }
  }
}

TEST(JacobianOutputs, OutputsReadAreRestoredBeforeEachSweep) {
  auto j = adjoint::jacobian(accumulate, "x");
  const double x[3] = {0.5, -1.5, 2.0};
  for (bool forward : {true, false}) {
    double y[3] = {1, 2, 3};
    adjoint::matrix<double> J(3, 3);
    if (forward) j.execute_forward(x, y, 3, J);
    else j.execute_reverse(x, y, 3, J);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(y[i], i + 1 + x[i] * x[i]);  // one call's update, not one per sweep
      for (int k = 0; k < 3; ++k) EXPECT_EQ(J[i][k], k == i ? 2 * x[i] : 0);
    }
  }
}

}  // namespace jacobian_outputs
