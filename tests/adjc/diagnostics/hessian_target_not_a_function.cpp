// The Hessian of a function object's operator() is not supported yet: named, never miscomputed.
#include "clad/Differentiator/Differentiator.h"
struct Quadratic {
  double a = 2;
  double operator()(double x, double y) const { return a * x * x * y; }
};
int main() {
  Quadratic q;
  auto h = clad::hessian(q);  // error: a Hessian is taken of a function (f, &f, or a function pointer adjc follows); member functions and function objects are not supported yet
  (void)h;
}
