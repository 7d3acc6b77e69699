#include <adjoint/ad.hpp>
double f(double x, double y) {
  auto pick = [&x]() -> double& {
    x *= 2;
    return x;
  };
  pick() *= y;  // error: the reference the lambda returns is used as a place here (written, addressed or bound to a reference); adjc differentiates it as returning the value: use the value
  return pick() * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
