#include <adjoint/ad.hpp>
double table[4] = {1, 2, 3, 4};
double* entry(double* x, int k) { return k < 0 ? x : table + k; }
double f(double* x) {
  const double* e = entry(x, 1);  // error: the pointer 'entry' returns is not supported: it reads 'table', which is not its own variable
  return *e * x[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
