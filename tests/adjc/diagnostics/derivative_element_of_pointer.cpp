// An element of a pointer to structs: a whole struct, which a seed of one number cannot name.
#include <adjoint/ad.hpp>
struct Point {
  double x, y;
};
double f(const Point* p) { return p[0].x * p[1].y; }
void request() {
  auto d = adjoint::derivative(f, "p[1]");  // error: the elements of 'p' are not numbers, so one of them is no direction; request the whole array ('p') and pass execute a direction
  (void)d;
}
