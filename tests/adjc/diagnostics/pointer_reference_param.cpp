#include <adjoint/ad.hpp>
double square_next(double*& p) {
  p++;
  return *p * *p;
}
double f(double x, double y) {
  double v[2] = {x, y};
  double* p = v;
  return square_next(p);  // error: parameter 'p' of 'square_next' is a pointer passed by reference ('double *&') that 'square_next' reassigns (or passes on by reference); adjc follows a pointer passed by reference only when the function never reassigns it: pass it by value ('double *')
}
void request() { auto g = adjoint::gradient(f); (void)g; }
