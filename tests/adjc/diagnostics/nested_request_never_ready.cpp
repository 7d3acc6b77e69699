// A request inside the function it differentiates can never be generated first.
#include <adjoint/ad.hpp>
double g(double x) {
  return x * adjoint::derivative(g, "x").execute(x);  // error: this request differentiates a function that reaches a request written in it
}
