#include <adjoint/ad.hpp>
#include <cmath>
// set_tanh's reverse reads o[k] as it left it (tanh's derivative from its value). Every iteration
// writes the same element, so each iteration's reverse would read the last iteration's o[0].
void set_tanh(double* o, int k, double v) { o[k] = std::tanh(v); }
double f(double* o, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    set_tanh(o, 0, x[i]);  // error: 'o' is overwritten by the call to 'set_tanh' but the derivative needs its earlier value
    s += o[0];
  }
  return s;
}
void request() { auto g = adjoint::gradient(f, "o, x"); (void)g; }
