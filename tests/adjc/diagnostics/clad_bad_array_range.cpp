// A malformed part of an array in a request's list: named, not guessed.
#include "clad/Differentiator/Differentiator.h"
double sum(const double* x, int n) { double s = 0; for (int i = 0; i < n; ++i) s += x[i]; return s; }
int main() {
  auto g = clad::gradient(sum, "x[0:k]");  // error: cannot read 'x[0:k]' as a parameter or part of an array parameter ('x[0:2]')
  (void)g;
}
