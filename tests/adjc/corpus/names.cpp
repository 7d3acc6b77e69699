// Corpus: user names that generated code also uses. A local or parameter called `result` (the
// seed is `_d_result`), names that look like adjoints (`_d_x` beside a parameter `x`, `_d__ret`),
// temporaries (`_t0`, `_darg0`), a parameter's sum of adjoints (`x_acc`), and callees called `t0`
// or `d_x` (their results are variables `_t0`, `_d_x`): each is renamed in generated code, and
// the output compiles and is right.
#include <adjoint/ad.hpp>

#include "gradcheck.hpp"

using namespace gradcheck;

namespace names {  // the corpus is one program: its names are its own

double square(double result) { return result * result; }
double local_result(double x) {
  double result = x * x;
  return result * square(x);
}
double adjoint_like(double x) {
  double _d_x = x;
  double _d__ret = x * 2;
  return _d_x * x * _d__ret;
}
double temporary_like(double x, double y) {
  double _t0 = x * y;
  double _darg0 = x;
  return _t0 * _darg0 + square(y);
}
double parameters_named_result(double result, double _d_result) { return result * _d_result * result; }
double accumulator_like(double x) {
  double x_acc = 1;
  x = x * x;
  x_acc = x * 3;
  return x * x_acc;
}
double t0(double v) { return v * 2; }
double d_x(double v) { return v * v; }
double callees_named_like_temporaries(double x) { return t0(x) * d_x(x) * x; }

TEST(Names, result) {
  check("local_result", adjoint::gradient(local_result), local_result, Scalar<double>{});
  check("parameters_named_result", adjoint::gradient(parameters_named_result), parameters_named_result,
        Scalar<double>{}, Scalar<double>{});
}
TEST(Names, generated_looking) {
  check("adjoint_like", adjoint::gradient(adjoint_like), adjoint_like, Scalar<double>{});
  check("temporary_like", adjoint::gradient(temporary_like), temporary_like, Scalar<double>{}, Scalar<double>{});
  check("accumulator_like", adjoint::gradient(accumulator_like), accumulator_like, Scalar<double>{});
  check("callees_named_like_temporaries", adjoint::gradient(callees_named_like_temporaries),
        callees_named_like_temporaries, Scalar<double>{});
}

}  // namespace names
