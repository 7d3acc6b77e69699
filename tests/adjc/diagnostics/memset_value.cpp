#include <adjoint/ad.hpp>
#include <cstring>
// memset to a non-zero byte: no number adjc follows.
double f(double x) {
  double a[3] = {x, x, x};
  std::memset(a, 1, sizeof a);  // error: 'memset' of numbers to a value other than 0 is not supported (its bytes are no number adjc follows); set the elements with std::fill_n(p, k, value)
  return a[0] * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
