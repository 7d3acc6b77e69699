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
  u += v;  // error: operator 'operator+=' returning 'V2 &' is not supported; declare it returning void and use it as a statement
  return u.x * u.y;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
