// A request adjc rejects: adjc++ fails with adjc's error at this file's line.
#include "clad/Differentiator/Differentiator.h"
double opaque(double x);
int main() {
  auto g = clad::gradient(opaque);  // error line
  (void)g;
}
