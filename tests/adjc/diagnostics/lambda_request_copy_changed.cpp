#include <adjoint/ad.hpp>
void request() {
  double k = 2;
  auto f = [k](double v) { return k * v * v; };  // error: 'k' is captured by copy and changed after the lambda is declared, so a gradient request cannot read the lambda's copy; capture it by reference ([&k]), or request the gradient where the lambda is written
  k = 3;
  auto g = adjoint::gradient(f);
  (void)g;
}
