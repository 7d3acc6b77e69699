#include <adjoint/ad.hpp>
double square_at(double*& p) { return *p * *p; }
double f(double x) {
  double* p = &x;
  return square_at(p);  // error: parameter 'p' of 'square_at' has type 'double *&', a pointer to a pointer, which adjc does not differentiate through; pass the pointer by value ('double *')
}
void request() { auto g = adjoint::gradient(f); (void)g; }
