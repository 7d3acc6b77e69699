#include <adjoint/ad.hpp>
#include <vector>
double f(const std::vector<double>& v) {
  return v.at(1) * v[0];  // error: 'std::vector::at' is not supported on std::vector 'v' in differentiated code; index it with operator[] instead
}
void request() { auto g = adjoint::gradient(f); (void)g; }
