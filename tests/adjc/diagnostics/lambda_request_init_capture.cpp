#include <adjoint/ad.hpp>
void request(double x) {
  auto f = [s = 2 * x](double v) { return s * v * v; };  // error: a gradient of a lambda with an init-capture ('s = ...') must be requested where the lambda is written: adjoint::gradient([s = ...](...) { ... })
  auto g = adjoint::gradient(f);
  (void)g;
}
