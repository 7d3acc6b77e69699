#include <adjoint/ad.hpp>
#include <optional>
double magnitude(const std::optional<double>& z) {  // error: parameter 'z' has type 'const std::optional<double> &', a library class adjc does not differentiate; pass its elements as a pointer and a length (such as 'const double* x, int n')
  return *z * *z;
}
void request() { auto g = adjoint::gradient(magnitude); (void)g; }
