#include <adjoint/ad.hpp>
double f(double x, int n) {
  double* p = new double[n];
  for (int i = 0; i < n; i++) p[i] = x * i;
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i] * p[i];
  delete[] p;
  p = nullptr;  // error: setting heap array pointer 'p' to nullptr is not supported (the reverse sweep frees the array); drop the assignment
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
