#include <adjoint/ad.hpp>
double* fresh(double* x, int n) { return n > 0 ? new double[n] : x; }
double f(double* x) {
  double* p = fresh(x, 0);  // error: the pointer 'fresh' returns is not supported: it holds a construct adjc does not follow here (CXXNewExpr)
  return *p;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
