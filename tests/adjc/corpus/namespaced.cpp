// Corpus: a function in a namespace, requested from inside that namespace (the generated
// declarations must land at file scope, not nested in the namespace).
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

namespace model {
double cube_plus(double x, double y) { return x * x * x + 2 * y; }
void gradient_of_cube_plus(double x, double y, double* dx, double* dy) {
  adjoint::gradient(cube_plus).execute(x, y, dx, dy);
}
}  // namespace model

TEST(Namespaced, request_inside_namespace) {
  double dx = 0, dy = 0;
  model::gradient_of_cube_plus(1.5, 0.3, &dx, &dy);
  EXPECT_NEAR(dx, 3 * 1.5 * 1.5, 1e-12);
  EXPECT_NEAR(dy, 2.0, 1e-12);
}
