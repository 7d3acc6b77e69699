#include <adjoint/ad.hpp>
double apply(double (*fn)(double), double v) { return fn(v); }
void request() {
  auto g = adjoint::gradient(apply, "v");  // error: parameter 'fn' of 'apply' is a function pointer, which a gradient request has no function for
  (void)g;
}
