#include <adjoint/ad.hpp>
// A local pointer given another array in a branch: after the `if` it points into either array, so
// it cannot become a new local pointer as a statement of its own block would (`p = b;`).
double f(const double* a, const double* b, double c) {
  const double* p = a;
  if (c > 0) {
    p = b;  // error: local pointer 'p' must keep pointing into the same array here; give it another array only by a statement of the block that declares it
  }
  return p[0] * c;
}
void request() { auto g = adjoint::gradient(f, "a, b, c"); (void)g; }
