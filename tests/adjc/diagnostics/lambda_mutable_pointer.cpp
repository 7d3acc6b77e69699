#include <adjoint/ad.hpp>
double f(const double* x, int n) {
  auto next = [x](double v) mutable {  // error: the mutable lambda changes its copy of pointer 'x', which is not supported; keep an index in the copy instead
    return v * *x++;
  };
  double s = 0;
  for (int i = 0; i < n; i++) s += next(1.5);
  return s;
}
void request() { auto g = adjoint::gradient(f, "x"); (void)g; }
