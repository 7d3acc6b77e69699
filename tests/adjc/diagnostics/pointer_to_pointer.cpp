#include <adjoint/ad.hpp>
double f(const double* const* rows, double x) {  // error: pointers to pointers are not supported
  return rows[0][0] * x;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
