// Corpus: forward mode through calls whose result is an integer (a std::vector's size inside an
// index): called as written, with no tangent, against central differences (tangentcheck.hpp).
#include <adjoint/ad.hpp>

#include <cmath>
#include <vector>

#include "tangentcheck.hpp"

namespace tangent_calls {

double wrapped(const std::vector<double>& x, double s) {
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += std::tanh(s * x[i]) * x[(i + 2) % x.size()];
  return sum;
}

TEST(TangentCalls, SizeInAnIndex) {
  std::vector<double> x = {0.4, -0.9, 1.3};
  auto d = adjoint::derivative(wrapped, "s");
  tangentcheck::expect<double>("wrapped", d.execute(x, 0.7), [&](double t) { return wrapped(x, 0.7 + t); });
}

}  // namespace tangent_calls
