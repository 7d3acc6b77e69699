#include <adjoint/ad.hpp>
// A struct used through its members (split) but copied from a function's result: its pointer
// member is the result's, which adjc only carries along, so reading through it is reported as for
// the result itself.
struct Span {
  const double* p;
  double w;
};
Span from(const double* x) { return Span{x + 1, x[0]}; }
double f(const double* x, double y) {
  Span s = from(x);
  return *s.p * y * s.w;  // error: pointer member 'p' is read here, but the result of 'from' (line 11) has one, whose pointer members adjc only carries along (its adjoint's are null); pass the pointer as an argument instead
}
void request() { auto g = adjoint::gradient(f); (void)g; }
