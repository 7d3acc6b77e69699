#include <adjoint/ad.hpp>
// A number passed by value is copied before the call (tests/adjc/corpus/taped_calls.cpp); an
// offset into another array is not: the reverse would compute it again from what the call wrote.
void accumulate(double* out, const double* a) { out[0] += a[0] * a[1]; }
void f(double* y, const double* z) {
  accumulate(y, z + int(y[0]));  // error: an argument reads 'y', which the call to 'accumulate' overwrites; copy the value into a local first
}
void request() { auto g = adjoint::gradient(f); (void)g; }
