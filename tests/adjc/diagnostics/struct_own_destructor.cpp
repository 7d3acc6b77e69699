#include <adjoint/ad.hpp>
struct Box {
  double w, h;
  ~Box() {}
  double area() const { return w * h; }
};
double f(double x, double y) {
  Box b{x, y};  // error: local object 'b' of struct 'Box', which has a destructor of its own, is not supported: generated code copies and tapes struct values member by member, as the compiler's own would; remove it (or declare it '= default')
  return b.area();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
