#include <adjoint/ad.hpp>
template <int K>
double scaled(double x) {
  return K * x * x;
}
double f(double x) {
  return scaled<2>(x) + scaled<3>(x);  // error: has the same parameter types as another differentiated specialization
}
void request() { auto g = adjoint::gradient(f); (void)g; }
