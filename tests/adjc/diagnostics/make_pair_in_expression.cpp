#include <adjoint/ad.hpp>
#include <utility>
double f(double x) {
  return std::make_pair(x, 2.0).first * x;  // error: std::make_pair is supported as the value of a pair variable, an assignment, a return or an argument
}
void request() { auto g = adjoint::gradient(f); (void)g; }
