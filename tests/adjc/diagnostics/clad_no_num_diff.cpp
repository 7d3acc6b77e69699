// Clad's opt-out of the numerical fallback: with CLAD_NO_NUM_DIFF a call without a body is an error again.
#define CLAD_NO_NUM_DIFF
#include "clad/Differentiator/Differentiator.h"
double opaque(double x);
double f(double x) {
  return opaque(x) * 2;  // error: no derivative for this call: 'opaque' has no body and no custom pullback
}
void request() { auto g = clad::gradient(f); (void)g; }
