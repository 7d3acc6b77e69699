// A function returning the pointer it was given, called with the address of one number and
// dereferenced where it is called (`*f(&x)`, Clad's ReverseForw.C): the value read is x, whatever
// else the function does (here: writes through the pointer, or returns nullptr on a path the call
// does not take).
#include "clad/Differentiator/Differentiator.h"

#include "clad_style/check.hpp"

double* scale_by_sign(double* p, int n) {
  int sign = n > 0 ? 1 : -1;
  *p *= sign * 1.5;
  return p;
}

enum class Pick { keep, drop };

double* kept(double* p, Pick pick) {
  if (pick == Pick::keep) return p;
  return nullptr;
}

double scaled(double x, double y) {
  double r = *scale_by_sign(&x, -4) * y;
  return r + x;  // x as the call left it
}

double picked(double x, double y) { return *kept(&y, Pick::keep) * x * y; }

int main() {
  clad_style::expect_gradients("scaled", scaled, clad::gradient(scaled), 1.1, 0.4);
  clad_style::expect_gradients("picked", picked, clad::gradient(picked), -0.8, 2.3);
  return clad_style::report();
}
