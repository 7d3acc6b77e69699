#include <adjoint/ad.hpp>
// A constructor pointing a member at the object's own memory (Clad's SimpleFunctions1 with
// x_pointer(&x)): adjc takes local objects apart into their members, which such a pointer would not
// follow (before this diagnostic, the output crashed reading through it).
class S {
 public:
  S(double p_x, double p_y) noexcept : x(p_x), y(p_y), x_pointer(&x) {}
  double x, y;
  double* x_pointer;
};
double f(double i, double j) {
  S obj(2, 3);  // error: this constructor of 'S' points 'x_pointer' at its own member 'x', which adjc does not support
  return (*obj.x_pointer) * i + i * j;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
