// break and early return: the forward sweep records which exit was taken, the reverse sweep
// jumps to the matching point.
#include <adjoint/ad.hpp>

double prefix_sum(const double* x, int n, double limit) {
  if (n <= 0) return 0;
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (s > limit) break;
    s += x[i] * x[i];
  }
  return s;
}

const char* request() { return adjoint::gradient(prefix_sum, "x").source(); }
