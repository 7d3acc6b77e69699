// A std::vector parameter in vector mode: its tangent would be a vector of tangent vectors.
#include <adjoint/ad.hpp>
#include <vector>
double sum(const std::vector<double>& x) {
  double s = 0;
  for (unsigned i = 0; i < x.size(); ++i) s += x[i] * x[i];
  return s;
}
void request() {
  auto d = adjoint::derivative<adjoint::vector_mode>(sum, "x");  // error: vector mode does not take a std::vector parameter yet; 'x' has type 'const std::vector<double> &': pass its elements as a pointer, or use adjoint::jacobian
  (void)d;
}
