// The PINN's network and loss (pinn.hpp), differentiated by adjc: built through
// adjoint_add_gradients, so the requests below are replaced by generated code.
//
// The network runs on a block of points at once: each layer is one GEMM over the block (dense, with
// custom derivatives that are GEMMs too) and a loop applying tanh, and its result is a struct of
// the block's outputs. u_p depends on point p only, so the second derivative of that struct along
// all the block's x (and along all its y) is each point's ∂²u/∂x² (∂²u/∂y²): the residuals and
// their sum of squares come from one forward sweep, whose reverse is the loss's weight gradient.
#include <adjoint/ad.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <adjoint/gemm.hpp>

#include "pinn.hpp"

// glibc's vector tanh (libmvec; CMakeLists.txt defines PINN_LIBMVEC when it links it), declared as
// -ffast-math declares it, without the rest of -ffast-math: GCC then vectorises the generated loops
// over a block's points that call tanh as it does their multiply-adds. adjc (clang, with -fopenmp)
// reads the declaration too: it recomputes a SIMD-callable tanh in the reverse rather than taping
// it, which would keep those loops from vectorising (docs/adjc-internals.md, phase 3).
#if defined(PINN_LIBMVEC)
extern "C" {
#pragma omp declare simd notinbranch
double tanh(double) noexcept;
}
#endif

namespace pinn {

namespace {

// A dense layer's product on a block of n points: out = W·in (+ b when `bias`), or added to out when
// `accumulate`; W is n_out × n_in at w[o], b after it, in and out rows of n. One GEMM (the engine's
// adjoint::gemm: OpenBLAS with the kernel for this CPU's instruction set), never differentiated
// from its body: its custom pushforward is the same product on the tangents (it is linear in in,
// and in W) and its custom pullback two more GEMMs, so every nested stage of the loss's derivative
// calls GEMMs on whole blocks (adjoint::custom_derivatives below).
void dense(const double* w, int o, const double* in, int n_in, double* out, int n_out, int n, bool bias,
           bool accumulate) {
  if (bias) {
    for (int i = 0; i < n_out; ++i)
      for (int p = 0; p < n; ++p) out[i * n + p] = (accumulate ? out[i * n + p] : 0) + w[o + n_out * n_in + i];
    accumulate = true;
  }
  adjoint::gemm(false, false, n_out, n, n_in, 1.0, w + o, n_in, in, n, accumulate ? 1.0 : 0.0, out, n);
}

}  // namespace
}  // namespace pinn

namespace adjoint::custom_derivatives {

// dense's tangent: out' = W·in' + W'·in + b' (the terms whose tangents vary; a tangent that does not
// is nullptr). Written with dense itself, so that a pushforward of it (a second derivative) or a
// pullback of it (a gradient over a derivative) is adjc's from this body, GEMMs again.
void dense_pushforward(const double* w, int o, const double* in, int n_in, double* out, int n_out, int n, bool bias,
                       bool accumulate, const double* d_w, const double* d_in, double* d_out) {
  pinn::dense(w, o, in, n_in, out, n_out, n, bias, accumulate);
  if (d_in) pinn::dense(w, o, d_in, n_in, d_out, n_out, n, false, accumulate);
  else if (!accumulate)
    for (int k = 0; k < n_out * n; ++k) d_out[k] = 0;
  if (d_w) pinn::dense(d_w, o, in, n_in, d_out, n_out, n, bias, true);
}

// dense's reverse: in's adjoint += Wᵀ·out's, W's += out's·inᵀ, b's += out's row sums; out's adjoint
// is zeroed when dense assigned out (adjc's convention for memory a call overwrites). It reads no
// value of out (unnamed), so adjc lets a later call add into out (the pushforward's second product).
void dense_pullback(const double* w, int o, const double* in, int n_in, double* /*out*/, int n_out, int n, bool bias,
                    bool accumulate, double* d_w, double* d_in, double* d_out) {
  if (d_in) adjoint::gemm(true, false, n_in, n, n_out, 1.0, w + o, n_in, d_out, n, 1.0, d_in, n);
  if (d_w) {
    adjoint::gemm(false, true, n_out, n_in, n, 1.0, d_out, n, in, n, 1.0, d_w + o, n_in);
    if (bias)
      for (int i = 0; i < n_out; ++i)
        for (int p = 0; p < n; ++p) d_w[o + n_out * n_in + i] += d_out[i * n + p];
  }
  if (!accumulate)
    for (int k = 0; k < n_out * n; ++k) d_out[k] = 0;
}

}  // namespace adjoint::custom_derivatives

namespace pinn {
namespace {

// One hidden layer on a block of n points: out[i][p] = tanh(b[i] + Σ_j W[i][j] in[j][p]) (rows of
// n), W at w[o], b after it; `sum` holds the pre-activations. Offsets, not pointers: the generated
// derivatives are differentiated again, and adjc follows indices; rows of n (p < n), so that adjc
// sees each element written and read by its own iteration only and tapes none of it.
void hidden_layer(const double* w, int o, const double* in, int n_in, double* sum, double* out, int n_out, int n) {
  dense(w, o, in, n_in, sum, n_out, n, true, false);
  for (int k = 0; k < n_out * n; ++k) out[k] = std::tanh(sum[k]);
}

// u at each of a block's n points (the struct: adjc's forward mode differentiates a struct result
// member by member, so a derivative of this is each point's derivative). Called through requests
// only, which adjc replaces by their generated code: hence maybe unused.
[[maybe_unused]] BlockValues block_outputs(const double* w, int width, const double* points, int n) {
  double in[2 * kBlock], s1[kMaxWidth * kBlock], h1[kMaxWidth * kBlock], s2[kMaxWidth * kBlock], h2[kMaxWidth * kBlock],
      s3[kMaxWidth * kBlock], h3[kMaxWidth * kBlock];
  for (int p = 0; p < n; ++p) {
    in[p] = points[2 * p];
    in[n + p] = points[2 * p + 1];
  }
  const int o2 = 3 * width, o3 = o2 + width * width + width, o4 = o3 + width * width + width;
  hidden_layer(w, 0, in, 2, s1, h1, width, n);
  hidden_layer(w, o2, h1, width, s2, h2, width, n);
  hidden_layer(w, o3, h2, width, s3, h3, width, n);
  BlockValues u;
  dense(w, o4, h3, width, u.u, 1, n, true, false);
  return u;
}

double rhs(double x, double y) {
  const double pi = std::numbers::pi;
  return 2 * pi * pi * std::sin(pi * x) * std::sin(pi * y);
}

// The residuals r_p = -Δu(x_p, y_p) - f(x_p, y_p) of a block's n interior points written to r, and
// scale · Σ_p r_p²: each point's Δu from the second derivatives of the block's outputs along the directions
// (1, 0, 1, 0, ...) (every x) and (0, 1, 0, 1, ...) (every y) of the points, since u_p depends on
// point p only. Its gradient in w is the residual term's, from the same sweep.
[[maybe_unused]] double residual_sum(const double* w, int width, const double* points, int n, double scale, double* r) {
  double along_x[2 * kBlock], along_y[2 * kBlock];
  for (int p = 0; p < n; ++p) {
    along_x[2 * p] = 1;
    along_x[2 * p + 1] = 0;
    along_y[2 * p] = 0;
    along_y[2 * p + 1] = 1;
  }
  const BlockValues uxx =
      adjoint::derivative<2>(block_outputs, "points").execute(w, width, points, n, along_x, along_x);
  const BlockValues uyy =
      adjoint::derivative<2>(block_outputs, "points").execute(w, width, points, n, along_y, along_y);
  double total = 0;
  for (int p = 0; p < n; ++p) {
    r[p] = -uxx.u[p] - uyy.u[p] - rhs(points[2 * p], points[2 * p + 1]);
    total += r[p] * r[p];
  }
  return scale * total;
}

// scale · Σ_p u_p² over a block's n boundary points, u written to u.
[[maybe_unused]] double boundary_sum(const double* w, int width, const double* points, int n, double scale, double* u) {
  const BlockValues values = block_outputs(w, width, points, n);
  double total = 0;
  for (int p = 0; p < n; ++p) {
    u[p] = values.u[p];
    total += u[p] * u[p];
  }
  return scale * total;
}

// The number of blocks n points take, and the first point of block b of them: blocks of equal size
// (to a point), so that the threads' shares are even.
int block_count(int n) { return (n + kBlock - 1) / kBlock; }
int block_start(int b, int blocks, int n) { return int(static_cast<long long>(b) * n / blocks); }

// Block b of the loss's blocks (the interior's, then the boundary's): its points, their number, and
// whether they are interior ones.
struct Block {
  const double* points;
  int n;
  bool inside;
};
Block block_of(int b, const double* interior, int n_interior, const double* boundary, int n_boundary) {
  const int interior_blocks = block_count(n_interior);
  const bool inside = b < interior_blocks;
  const int part = inside ? b : b - interior_blocks, parts = inside ? interior_blocks : block_count(n_boundary);
  const int all = inside ? n_interior : n_boundary;
  const int start = block_start(part, parts, all);
  return {(inside ? interior : boundary) + 2 * start, block_start(part + 1, parts, all) - start, inside};
}

}  // namespace

double network(const double* w, int width, double x, double y) {
  const double point[2] = {x, y};
  double u;
  boundary_sum(w, width, point, 1, 1.0, &u);
  return u;
}

double loss(const double* w, int width, const double* interior, int n_interior, const double* boundary, int n_boundary,
            double boundary_weight) {
  double residual = 0, edge = 0;
  const int blocks = block_count(n_interior) + block_count(n_boundary);
  for (int b = 0; b < blocks; ++b) {
    const Block block = block_of(b, interior, n_interior, boundary, n_boundary);
    double values[kBlock];
    if (block.inside) residual += residual_sum(w, width, block.points, block.n, 1.0, values);
    else edge += boundary_sum(w, width, block.points, block.n, 1.0, values);
  }
  return residual / n_interior + boundary_weight * edge / n_boundary;
}

// The loss is Σ r_p² / N + λ Σ u_p² / M: each block's gradient of its sum, scaled by 1/N or λ/M, adds
// to grad, one forward and one reverse sweep a block; the residuals and boundary values the sums
// write come from the same sweep (their adjoints, seeded 0, add nothing); blocks in parallel.
double loss_and_gradient(const double* w, int width, const double* interior, int n_interior, const double* boundary,
                         int n_boundary, double boundary_weight, double* grad) {
  const int count = parameter_count(width);
  const int blocks = block_count(n_interior) + block_count(n_boundary);
  double residual = 0, edge = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : residual, edge, grad[:count])
  for (int b = 0; b < blocks; ++b) {
    const Block block = block_of(b, interior, n_interior, boundary, n_boundary);
    const double scale = block.inside ? 1.0 / n_interior : boundary_weight / n_boundary;
    double values[kBlock], d_values[kBlock] = {};
    if (block.inside)
      adjoint::gradient(residual_sum, "w, r").execute(w, width, block.points, block.n, scale, values, grad, d_values);
    else
      adjoint::gradient(boundary_sum, "w, u").execute(w, width, block.points, block.n, scale, values, grad, d_values);
    double sum = 0;
    for (int p = 0; p < block.n; ++p) sum += values[p] * values[p];
    if (block.inside) residual += sum;
    else edge += sum;
  }
  return residual / n_interior + boundary_weight * edge / n_boundary;
}

double exact(double x, double y) { return std::sin(std::numbers::pi * x) * std::sin(std::numbers::pi * y); }

}  // namespace pinn
