#include <adjoint/ad.hpp>
#include <cstring>
// memcpy/memset of numbers: untyped writes adjc cannot follow (it was accepted, with zero gradients).
double f(double a, double b) {
  double t[2];
  double s[2] = {a, b};
  std::memcpy(t, s, sizeof t);  // error: call to 'memcpy' writes numbers as untyped memory, which adjc cannot follow
  return t[0] * t[1];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
