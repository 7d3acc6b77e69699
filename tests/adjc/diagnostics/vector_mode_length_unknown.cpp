// A pointer parameter in vector mode: its length, the number of directions, is unknown.
#include <adjoint/ad.hpp>
double sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}
void request() {
  auto d = adjoint::derivative<adjoint::vector_mode>(sum, "x");  // error: vector mode needs every parameter's length at compile time; 'x' has type 'const double *': use a fixed-size array or std::array, or adjoint::jacobian (lengths at run time)
  (void)d;
}
