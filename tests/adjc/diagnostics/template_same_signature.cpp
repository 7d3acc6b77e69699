#include <adjoint/ad.hpp>
// Type arguments that do not appear in the parameters: the two derivatives would be one overload.
template <class T>
double scaled(double x) {
  return sizeof(T) * x * x;
}
double f(double x) {
  return scaled<int>(x) + scaled<long>(x);  // error: has the same parameter types as another differentiated specialization
}
void request() { auto g = adjoint::gradient(f); (void)g; }
