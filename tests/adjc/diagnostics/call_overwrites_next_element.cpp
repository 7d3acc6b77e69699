#include <adjoint/ad.hpp>
#include <cmath>
// Each call writes its own element o[i], but the product reads o[i + 1], which the next
// iteration's call overwrites before the product's reverse reads it.
void set_tanh(double* o, int k, double v) { o[k] = std::tanh(v); }
double f(double* o, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n - 1; i++) {
    set_tanh(o, i, x[i]);  // error: 'o' is overwritten by the call to 'set_tanh' but the derivative needs its earlier value
    s += o[i + 1] * x[i];
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "o, x"); (void)g; }
