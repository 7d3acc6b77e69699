// Clad's spelling of a Jacobian request, of a function that writes nothing: no rows.
#include "clad/Differentiator/Differentiator.h"
double f(double x, double y) { return x * y > 0 ? 1.0 : 0.0; }
void g(const double* x, int n) { (void)x[n - 1]; }
void request() {
  auto j = clad::jacobian(g);  // error: 'g' has no output: a Jacobian differentiates the arrays and references a function writes, and its floating result
  (void)j;
}
