#include <adjoint/ad.hpp>
// A copy of a mutable lambda would start from the copies the original holds at that point; its
// calls pass the original's, so the two would share them.
double f(double x) {
  auto step = [s = x]() mutable {
    s *= 2;
    return s;
  };
  auto twice = [step]() mutable { return step() + step(); };  // error: the lambda copies lambda 'step', which changes its own copies; this is not supported: capture 'step' by reference
  return twice();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
