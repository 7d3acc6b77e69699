#include <adjoint/ad.hpp>
struct Vec {
  double* data;
  int n;
};
void accumulate_adjoint(Vec& into, const Vec& from);
Vec identity(const Vec& x) { return x; }
void request() {
  auto g = adjoint::gradient(identity);  // error: a gradient can be requested for functions returning a floating value or void only (a value-class or struct result has no seed)
  (void)g;
}
