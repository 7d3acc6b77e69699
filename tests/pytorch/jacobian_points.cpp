// Jacobians by adjoint::jacobian of three functions at fixed points, printed for
// test_jacobian.py to compare with torch.autograd.functional.jacobian: one line per matrix,
// `name rows cols` and its elements row by row. The same functions are written in PyTorch there.
#include <adjoint/ad.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

void ring(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] = std::sin(x[i]) * x[(i + 1) % n] + std::exp(0.1 * x[i]);
}

void softmax(const double* x, double* y, int n) {
  double top = x[0];
  for (int i = 1; i < n; ++i) top = std::fmax(top, x[i]);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - top);
    sum += y[i];
  }
  for (int i = 0; i < n; ++i) y[i] /= sum;
}

// Outputs y, then the result; inputs x and the scale s.
double layer(const std::vector<double>& x, double s, std::vector<double>& y) {
  double norm = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = std::tanh(s * x[i]) * x[(i + 2) % x.size()];
    norm += y[i] * y[i];
  }
  return std::sqrt(norm);
}

void print(const char* name, const adjoint::matrix<double>& J) {
  std::printf("%s %zu %zu", name, J.rows(), J.cols());
  for (size_t i = 0; i < J.rows(); ++i)
    for (size_t j = 0; j < J.cols(); ++j) std::printf(" %.17g", J(i, j));
  std::printf("\n");
}

int main() {
  double x[4] = {0.3, -1.2, 0.8, 2.1}, y[4] = {};
  adjoint::matrix<double> ring_j(4, 4);
  adjoint::jacobian(ring, "x").execute(x, y, 4, ring_j);
  print("ring", ring_j);

  double z[5] = {0.5, -0.25, 1.5, 0.0, -2.0}, p[5] = {};
  adjoint::matrix<double> softmax_j(5, 5);
  adjoint::jacobian(softmax, "x").execute(z, p, 5, softmax_j);
  print("softmax", softmax_j);

  std::vector<double> v = {0.4, -0.9, 1.3}, w(3);
  adjoint::matrix<double> layer_j;  // 4 outputs (w, then the result) x 4 inputs (v, then s)
  adjoint::jacobian(layer, "x, s").execute(v, 0.7, w, layer_j);
  print("layer", layer_j);
}
