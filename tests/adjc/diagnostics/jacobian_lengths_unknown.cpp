// Two pointer inputs: the matrix's columns cannot say where one ends and the other starts.
#include <adjoint/ad.hpp>
void add(const double* a, const double* b, double* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = a[i] * b[i];
}
void request() {
  auto j = adjoint::jacobian(add, "a, b");  // error: 'a' and 'b' of 'add' are pointers on the same side of the Jacobian, whose lengths adjc does not know; the matrix gives one length per side: make the others std::vector or fixed-size arrays
  (void)j;
}
