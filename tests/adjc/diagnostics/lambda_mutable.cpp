#include <adjoint/ad.hpp>
// A mutable lambda's changed copies live in the lambda; called where it is written, there is no
// variable to hold them between the forward and the reverse.
double f(double x) {
  return [scale = 1.0](double v) mutable {  // error: a mutable lambda that changes its copy of 'scale' is called where it is written, which is not supported; hold it in a local variable (auto f = [...](...) mutable { ... };) and call that
    scale *= 2;
    return v * scale;
  }(x);
}
void request() { auto g = adjoint::gradient(f); (void)g; }
