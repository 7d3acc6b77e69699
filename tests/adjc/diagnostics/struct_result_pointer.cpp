#include <adjoint/ad.hpp>
struct Span {
  const double* p;
  int n;
};
Span first_half(const double* x, int n) { return Span{x, n / 2}; }
double f(const double* x, int n) {
  double s = first_half(x, n).p[0];  // error: pointer member 'p' is read here, but the result of 'first_half' (line 8) has one, whose pointer members adjc only carries along (its adjoint's are null); pass the pointer as an argument instead
  return s * x[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
