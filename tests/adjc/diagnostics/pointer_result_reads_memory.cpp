#include <adjoint/ad.hpp>
const double* largest(const double* a, int n) {
  const double* best = a;
  for (int i = 1; i < n; ++i)
    if (a[i] > *best) best = a + i;
  return best;
}
double f(const double* a) {
  return *largest(a, 3) * 3;  // error: the pointer 'largest' returns is not supported: it reads memory through a pointer
}
void request() { auto g = adjoint::gradient(f); (void)g; }
