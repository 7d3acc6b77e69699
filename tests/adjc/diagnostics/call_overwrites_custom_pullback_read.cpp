#include <adjoint/ad.hpp>
// A custom pullback reads every parameter it names: add_to's names o (it does not need it, but adjc
// cannot tell), so a later call must not overwrite what the first wrote. Left unnamed, it may
// (tests/adjc/corpus/nested_custom.cpp).
void add_to(double* o, double x, bool add);
namespace adjoint::custom_derivatives {
void add_to_pullback(double* o, double x, bool add, double* d_o, double* d_x) {
  (void)o;
  *d_x += 2 * x * *d_o;
  if (!add) *d_o = 0;
}
}  // namespace adjoint::custom_derivatives
double f(double* o, double x, double y) {
  add_to(o, x, false);
  add_to(o, y, true);  // error: 'o' is overwritten by the call to 'add_to' but the derivative needs its earlier value
  return *o;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
