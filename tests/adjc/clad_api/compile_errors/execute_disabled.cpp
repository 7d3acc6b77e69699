// A request under `#pragma clad OFF` generates nothing; executing it is a compile error that says so.
#include "clad/Differentiator/Differentiator.h"
double sq(double x) { return x * x; }
int main() {
#pragma clad OFF
  auto g = clad::gradient(sq);
#pragma clad ON
  double dx = 0;
  g.execute(2.0, &dx);
  return int(dx);
}
