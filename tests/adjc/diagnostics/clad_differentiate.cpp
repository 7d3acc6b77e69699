// Clad's clad::differentiate of a higher order is not supported yet: adjc names the order, never
// crashes or drops the call.
#include "clad/Differentiator/Differentiator.h"
double f(double x, double y) { return x * x * y; }
int main() {
  auto d = clad::differentiate<2>(f, "x");  // error: derivatives of order 2 are not supported yet by adjc's forward mode (only order 1)
  (void)d;
}
