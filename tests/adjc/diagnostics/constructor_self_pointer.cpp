#include <adjoint/ad.hpp>
// A constructor that computes (a body), lowered in place on a stand-in object, pointing a member at
// the object's own memory: the pointer would point into the stand-in, not into the object built.
// (A constructor that only copies its arguments may: `x_pointer(&x)` points at the local's member.)
class S {
 public:
  S(double p_x, double p_y) noexcept : x(p_x), y(p_y), x_pointer(&x) { y *= x; }
  double x, y;
  double* x_pointer;
};
double f(double i, double j) {
  S obj(2, 3);  // error: this constructor of 'S' points 'x_pointer' at its own member 'x', which adjc does not support
  return (*obj.x_pointer) * i + i * j;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
