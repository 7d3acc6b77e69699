#include <adjoint/ad.hpp>
double f(double w) {
  struct Point {  // error: a class defined inside a function ('Point') is not supported; define it outside the function
    double x, y;
  };
  Point p{w, w * w};
  return p.x * p.y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
