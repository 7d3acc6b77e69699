// A gradient over a derivative (reverse over forward). The pushforward declares its loop's counter
// in the `for` and computes tanh once into a temporary, so the gradient of it sees a canonical
// loop: it counts the loop again in the reverse instead of taping the counter and the sum per
// iteration.
#include <adjoint/ad.hpp>
#include <cmath>

double activations(const double* w, const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += std::tanh(w[i] * x[i]);
  return s;
}

double slope(const double* w, const double* x, double* v, int n) {
  return adjoint::derivative(activations, "x").execute(w, x, n, v);
}

const char* request() { return adjoint::gradient(slope, "w").source(); }
