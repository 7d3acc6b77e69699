#include <adjoint/ad.hpp>
// A function returning a struct, declared without a body (its call is hoisted): reported, not a crash.
struct S {
  double x;
};
S combine(const S& a, const S& b);
double f(double a, double b) {
  S s{a}, t{b};
  S r = combine(s, t);  // error: no derivative for this call: 'combine' has no body and no custom pullback (define adjoint::custom_derivatives::combine_pullback)
  return r.x * a;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
