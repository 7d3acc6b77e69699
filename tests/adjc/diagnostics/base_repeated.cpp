#include <adjoint/ad.hpp>
struct Value { double v; };
struct Left : Value {};
struct Right : Value {};
struct Both : Left, Right { double w; };
double f(const Both& b, double x) {  // error: parameter 'b' has type 'const Both &': base class 'Value' repeated in the hierarchy of 'Both'
  return b.w * x;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
