#pragma once
// A physics-informed network for -Δu = f on the unit square, u = 0 on its boundary, with the exact
// solution u = sin(πx)·sin(πy) (docs/pinn.md). The network is an MLP 2 -> w -> w -> w -> 1 with tanh;
// its Laplacian is adjc's second derivatives with respect to the input, the loss's gradient with
// respect to the weights adjc's reverse mode over them (pinn_model.cpp).
#include <vector>

namespace pinn {

// The widest hidden layer the generated code holds (its activations are local arrays), and the
// most points the network runs on at once (a block: each layer's product one GEMM over them).
inline constexpr int kMaxWidth = 64;
inline constexpr int kBlock = 100;

// A value per point of a block: the network's result on a block (pinn_model.cpp), whose derivatives
// adjc gives member by member.
struct BlockValues {
  double u[kBlock];
};

// The number of weights of a network of hidden width `width`: three hidden layers (weights, then
// biases), then the output layer.
inline int parameter_count(int width) { return 2 * width + width + 2 * (width * width + width) + width + 1; }

// u(x, y) of the network with weights `w`.
double network(const double* w, int width, double x, double y);
// The loss: the mean squared residual of -Δu - f at the interior points (x, y pairs) plus
// `boundary_weight` times the mean squared u at the boundary points.
double loss(const double* w, int width, const double* interior, int n_interior, const double* boundary, int n_boundary,
            double boundary_weight);
// The loss, and its gradient with respect to the weights added to `grad`.
double loss_and_gradient(const double* w, int width, const double* interior, int n_interior, const double* boundary,
                         int n_boundary, double boundary_weight, double* grad);
// The exact solution and the right-hand side f = 2π² sin(πx) sin(πy).
double exact(double x, double y);

// Weights drawn as Glorot-uniform per layer, biases zero, from `seed`.
std::vector<double> initial_weights(int width, unsigned seed);

}  // namespace pinn
