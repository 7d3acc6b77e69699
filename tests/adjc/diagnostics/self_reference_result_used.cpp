#include <adjoint/ad.hpp>
struct V2 {
  double x, y;
  V2& operator+=(const V2& o) {
    x += o.x;
    y += o.y;
    return *this;
  }
};
double f(double a, double b) {
  V2 u{a, b}, v{b, a};
  double r = (u += v).x;  // error: the result of 'operator+=' (a reference to its object) is used; call it as a statement of its own
  return r * u.y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
