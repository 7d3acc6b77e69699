#include <adjoint/ad.hpp>
// Rows that may be re-pointed (`rows[0] = a;`) could point at memory with a derivative.
double repoint(const double** rows, const double* a, int n) {  // error: pointers to pointers are supported only as parameters of rows of constant numbers (such as 'const double* const* rows'), which have no derivative ('rows')
  rows[0] = a;
  return rows[0][0] * a[1] * n;
}
void request() { auto g = adjoint::gradient(repoint, "a"); (void)g; }
