// Corpus: gradient requests inside macros, as test suites write them: a macro that is the
// request, a function or parameter list named by a macro, a request as a macro's argument, and a
// whole check (request, execute, compare) in a do-while macro.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

double product(double x, double y) { return x * x * y + y; }
float scaled_sum(const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * (i + 1);
  return s;
}

#define GRAD(f, p) adjoint::gradient(f, p)
#define GRAD_ALL(f) adjoint::gradient(f)
#define FUNCTION product
#define PARAMS "y"
#define IDENTITY(e) (e)
#define CHECK_SCALAR(f, params)                                         \
  do {                                                                  \
    auto g_ = adjoint::gradient(f, params);                             \
    check(#f, g_, f, Scalar<double>{}, Scalar<double>{});               \
  } while (0)
#define CHECK_ARRAY(f) check(#f, adjoint::gradient(f, "x"), f, In<float>{5}, 5)

TEST(Macros, request_is_the_macro) {
  auto g = GRAD(product, "x, y");
  check("product", g, product, Scalar<double>{}, Scalar<double>{});
  auto h = GRAD_ALL(product);
  check("product", h, product, Scalar<double>{}, Scalar<double>{});
}
TEST(Macros, function_and_parameters_from_macros) {
  auto g = adjoint::gradient(FUNCTION, PARAMS);
  check("product", g, product, Fixed<double>{0.3}, Scalar<double>{});
}
TEST(Macros, request_as_macro_argument) {
  auto g = IDENTITY(adjoint::gradient(product, "x"));
  check("product", g, product, Scalar<double>{}, Fixed<double>{0.7});
}
TEST(Macros, whole_check_in_a_macro) {
  CHECK_SCALAR(product, "x, y");
  CHECK_SCALAR(product, "x,y");
}
TEST(Macros, one_line_check_macro) { CHECK_ARRAY(scaled_sum); }
