#include <adjoint/ad.hpp>
void request() {
  double acc = 0;
  auto add = [&acc](double v) { acc += v * v; };  // error: the lambda writes its capture 'acc', which a gradient request cannot return; return the value from the lambda instead
  auto g = adjoint::gradient(add);
  (void)g;
}
