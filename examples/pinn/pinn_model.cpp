// The PINN's network and loss (pinn.hpp), differentiated by adjc: built through
// adjoint_add_gradients, so the requests below are replaced by generated code.
#include <adjoint/ad.hpp>

#include <cmath>
#include <numbers>

#include "pinn.hpp"

namespace pinn {

namespace {

// One hidden layer: out[i] = tanh(b[i] + Σ_j W[i][j] in[j]), W at w[o], b after it. Offsets, not
// pointers: the generated derivatives are differentiated again, and adjc follows indices.
void hidden_layer(const double* w, int o, const double* in, int n_in, double* out, int n_out) {
  for (int i = 0; i < n_out; ++i) {
    double s = w[o + n_out * n_in + i];
    for (int j = 0; j < n_in; ++j) s += w[o + i * n_in + j] * in[j];
    out[i] = std::tanh(s);
  }
}

double rhs(double x, double y) {
  const double pi = std::numbers::pi;
  return 2 * pi * pi * std::sin(pi * x) * std::sin(pi * y);
}

}  // namespace

double network(const double* w, int width, double x, double y) {
  double in[2], a[kMaxWidth], b[kMaxWidth];
  in[0] = x;
  in[1] = y;
  const int o2 = 3 * width, o3 = o2 + width * width + width, o4 = o3 + width * width + width;
  hidden_layer(w, 0, in, 2, a, width);
  hidden_layer(w, o2, a, width, b, width);
  hidden_layer(w, o3, b, width, a, width);
  double u = w[o4 + width];
  for (int j = 0; j < width; ++j) u += w[o4 + j] * a[j];
  return u;
}

double loss(const double* w, int width, const double* interior, int n_interior, const double* boundary, int n_boundary,
            double boundary_weight) {
  double residual = 0, edge = 0;
  for (int p = 0; p < n_interior; ++p) {
    const double x = interior[2 * p], y = interior[2 * p + 1];
    const double laplacian = adjoint::derivative<2>(network, "x").execute(w, width, x, y) +
                             adjoint::derivative<2>(network, "y").execute(w, width, x, y);
    const double r = -laplacian - rhs(x, y);
    residual += r * r;
  }
  for (int p = 0; p < n_boundary; ++p) {
    const double u = network(w, width, boundary[2 * p], boundary[2 * p + 1]);
    edge += u * u;
  }
  return residual / n_interior + boundary_weight * edge / n_boundary;
}

double loss_and_gradient(const double* w, int width, const double* interior, int n_interior, const double* boundary,
                         int n_boundary, double boundary_weight, double* grad) {
  adjoint::gradient(loss, "w").execute(w, width, interior, n_interior, boundary, n_boundary, boundary_weight, grad);
  return loss(w, width, interior, n_interior, boundary, n_boundary, boundary_weight);
}

double exact(double x, double y) { return std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y); }

}  // namespace pinn
