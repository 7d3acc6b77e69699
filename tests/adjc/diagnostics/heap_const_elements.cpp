#include <adjoint/ad.hpp>
double f(double x) {
  const double* p = new double(x);  // error: heap array 'p' of const elements is not supported (its adjoint is written); declare it 'double* p'
  double r = *p * x;
  delete p;
  return r;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
