#include <adjoint/ad.hpp>
double f(const double* w, const double* x, int m) {
  auto at = [&](int c) { return c * m; };
  auto dot = [&]() {
    double s = 0;
    for (int c = 0; c < m; c++) s += w[at(c)] * x[c];  // error: the lambda captures lambda 'at', which has captures of its own; this is not supported: write 'at' as a function, or pass what it computes as a parameter
    return s;
  };
  return dot();
}
void request() { auto g = adjoint::gradient(f, "w, x"); (void)g; }
