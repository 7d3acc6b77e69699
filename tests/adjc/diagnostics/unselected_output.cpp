#include <adjoint/ad.hpp>
double f(const double* w, double* tmp, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) tmp[i] = w[i] * w[i];
  for (int i = 0; i < n; i++) s += tmp[i];
  return s;
}
void request() { auto g = adjoint::gradient(f, "w"); (void)g; }  // error: parameter 'tmp' of 'f' receives values that depend on the differentiated parameters
