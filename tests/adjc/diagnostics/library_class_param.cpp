#include <adjoint/ad.hpp>
#include <vector>
double sum_squares(const std::vector<double>& v) {  // error: parameter 'v' has type 'const std::vector<double> &', a library class adjc does not differentiate; pass its elements as a pointer and a length (such as 'const double* x, int n')
  double s = 0;
  for (int i = 0; i < 3; i++) s += v[i] * v[i];
  return s;
}
void request() { auto g = adjoint::gradient(sum_squares); (void)g; }
