#include <adjoint/ad.hpp>
void add_square(double* out, double a) { out[0] += a * a; }
void f(double* y) {
  add_square(y, y[0]);  // error: an argument reads 'y', which the call to 'add_square' overwrites; copy the value into a local first
}
void request() { auto g = adjoint::gradient(f); (void)g; }
