// A reverse sweep for an activity pattern: with c's adjoint inactive, the local row y (read in
// the reverse only by c's adjoint) is neither kept nor taped. The pattern's sweeps are named after
// it (`weighted_forward_100`, `weighted_reverse_100`: no push), and weighted_pullback runs them;
// the full-activity pair (`weighted_forward`, which pushes y) is there for code calling it by
// name; bend's plan the pattern does not change, so it has the full-activity pair only.
#include <adjoint/ad.hpp>
#include <cmath>

void bend(const double* x, double* y, int n) {
  for (int i = 0; i < n; i++) y[i] = x[i] * x[i] + std::sin(x[i]);
}

double weighted(const double* x, const double* c, int n) {
  double y[64];
  bend(x, y, n);
  double f = 0;
  for (int i = 0; i < n; i++) f += c[i] * y[i];
  return f;
}

const char* request() { return adjoint::gradient(weighted, "x").source(); }
