// Clad's clad::differentiate of an order beyond 8: adjc names the order, never crashes or drops the
// call.
#include "clad/Differentiator/Differentiator.h"
double f(double x, double y) { return x * x * y; }
int main() {
  auto d = clad::differentiate<9>(f, "x");  // error: a derivative of order 9 was requested; the order must be between 1 and 8
  (void)d;
}
