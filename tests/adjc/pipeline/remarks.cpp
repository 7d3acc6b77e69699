// adjc --remarks on loops of known plans (tests/adjc/CMakeLists.txt checks the lines).
#include <adjoint/ad.hpp>

// Squared in place: the reverse reads the old values, taped in bulk with the loop.
void square(double* y, int n) {
  for (int i = 0; i < n; i++) y[i] = y[i] * y[i];
}
// The same with a break: no bulk save, one push and one pop per element.
void square_until(double* y, int n) {
  for (int i = 0; i < n; i++) {
    if (y[i] > 100) break;
    y[i] = y[i] * y[i];
  }
}
// A product into an outer scalar: its reverse iterations depend on each other.
double product(const double* x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++) p = p * x[i];
  return p;
}

double loss(double* y, const double* x, int n) {
  square(y, n);
  square_until(y, n);
  return product(x, n) + y[0];
}

auto loss_gradient = adjoint::gradient(loss, "y, x");
