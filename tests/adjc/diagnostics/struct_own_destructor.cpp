#include <adjoint/ad.hpp>
// A destructor whose body has an effect (an empty one is as the compiler's).
int destroyed = 0;
struct Box {
  double w, h;
  ~Box() { ++destroyed; }
  double area() const { return w * h; }
};
double f(double x, double y) {
  Box b{x, y};  // error: local object 'b' of struct 'Box', which has a destructor of its own that does more than copy members, is not supported
  return b.area();
}
void request() { auto g = adjoint::gradient(f); (void)g; }
