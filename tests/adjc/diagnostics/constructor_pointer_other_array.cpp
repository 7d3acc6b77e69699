#include <adjoint/ad.hpp>
struct Scaling {
  double gain;
  Scaling(double* p, double v) : gain(v) { *p *= v; }
};
double f(double* a, double* b, double v) {
  Scaling s(a, v);
  Scaling t(b, v);  // error: pointer parameter 'p' of this constructor of 'Scaling' points into another array than in its first construction in this function, which adjc does not support; construct it from one array
  return a[0] * t.gain + b[0] * s.gain;
}
void request() { auto g = adjoint::gradient(f); (void)g; }
