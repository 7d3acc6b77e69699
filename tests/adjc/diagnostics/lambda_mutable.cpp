#include <adjoint/ad.hpp>
double f(double x) {
  double scale = 1;
  auto grow = [scale](double v) mutable {  // error: a mutable lambda (its copies of the captures change from call to call) is not supported; keep what it changes in a local where it is called, and have the lambda return the new value
    scale *= 2;
    return v * scale;
  };
  return grow(x) + grow(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
