#include <adjoint/ad.hpp>
// An operator that has no custom-pullback name (operator%) declared without a body: the hint must
// not name a pullback no one can define.
struct S {
  double x;
};
S operator%(const S& a, const S& b);
double f(double a, double b) {
  S s{a}, t{b};
  S r = s % t;  // error: no derivative for this call: 'operator%' has no body and no custom pullback (give it a body)
  return r.x * a;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
