#include <adjoint/ad.hpp>
struct Span {
  const double* p;
  int n;
};
Span first_half(const double* x, int n) { return Span{x, n / 2}; }
double f(const double* x, int n) {
  double s = first_half(x, n).p[0];  // error: calling a function that returns struct 'Span', which has members other than numbers and arrays of numbers, is not supported; return a struct of numbers, or form the pointers where they are used
  return s * x[0];
}
void request() { auto g = adjoint::gradient(f); (void)g; }
