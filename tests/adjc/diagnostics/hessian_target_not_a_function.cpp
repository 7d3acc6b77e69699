// A Hessian requested of a number, not of anything callable.
#include "clad/Differentiator/Differentiator.h"
int main() {
  double k = 2;
  auto h = clad::hessian(k);  // error: the first argument of a Hessian request must name a function, a member function (&S::f), a lambda, a function object or a function pointer adjc follows
  (void)h;
}
