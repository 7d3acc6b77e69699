#include <adjoint/ad.hpp>
void request() {
  double k = 2;
  auto f = [&k](double v) { return k * v * v; };
  auto g = adjoint::gradient(f, "k");  // error: 'k' is a capture of the lambda; captured values are constants of its gradient: make it a parameter of the lambda to differentiate it
  (void)g;
}
