// Clad's clad::jacobian is not supported yet: adjc names the call, never crashes or drops it.
#include "clad/Differentiator/Differentiator.h"
double f(double x, double y) { return x * x * y; }
int main() {
  auto d = clad::jacobian(f, "x");  // error: 'clad::jacobian' is not supported yet by adjc (it generates gradients: clad::gradient)
  (void)d;
}
