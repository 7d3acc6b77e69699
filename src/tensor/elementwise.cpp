// Element-wise arithmetic with broadcasting, and the sum/mean reductions, with their pullbacks.
#include <cstring>

#include "adjoint/tensor.hpp"
#include "strided.hpp"

namespace adjoint {

using namespace tensor_detail;

namespace {

// out (broadcast of a and b) = op(a, b). Same-shape contiguous operands take a flat loop.
template <class Op>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, Op op) {
  int shape[kMaxTensorDims];
  const int ndim = broadcast_shape(a, b, shape);
  Tensor out = new_tensor(ndim, shape);
  float* o = out.data;
  if (a.is_contiguous() && b.is_contiguous() && a.same_shape(b)) {
    const std::size_t n = out.numel();
    const float* x = a.data;
    const float* y = b.data;
#pragma omp parallel for simd
    for (std::size_t i = 0; i < n; i++) o[i] = op(x[i], y[i]);
    return out;
  }
  int shape4[kMaxTensorDims] = {1, 1, 1, 1};
  for (int d = 0; d < ndim; d++) shape4[kMaxTensorDims - ndim + d] = shape[d];
  const Strided4 x = broadcast_to(a, shape4), y = broadcast_to(b, shape4);
#pragma omp parallel for collapse(2)
  for (int i0 = 0; i0 < shape4[0]; i0++)
    for (int i1 = 0; i1 < shape4[1]; i1++)
      for (int i2 = 0; i2 < shape4[2]; i2++) {
        float* row = o + ((std::size_t(i0) * shape4[1] + i1) * shape4[2] + i2) * shape4[3];
        for (int i3 = 0; i3 < shape4[3]; i3++)
          row[i3] = op(x.data[x.offset(i0, i1, i2, i3)], y.data[y.offset(i0, i1, i2, i3)]);
      }
  return out;
}

// x with its elements replaced by op(x) (x must be fresh: this writes in place).
template <class Op>
void apply_in_place(const Tensor& x, Op op) {
  const std::size_t n = x.numel();
  float* p = x.data;
#pragma omp parallel for simd
  for (std::size_t i = 0; i < n; i++) p[i] = op(p[i]);
}

int normalised_dim(const Tensor& x, int dim, const char* op) {
  const int d = dim < 0 ? dim + x.ndim : dim;
  require(d >= 0 && d < x.ndim, op,
          [&] { return std::string("dimension " + std::to_string(dim) + " out of range for " + shape_string(x)); });
  return d;
}

// The sum over dimension d as a tensor with extent 1 there (keepdim), zeroed then accumulated.
Tensor sum_keepdim(const Tensor& x, int d) {
  int shape[kMaxTensorDims];
  std::copy(x.shape, x.shape + x.ndim, shape);
  shape[d] = 1;
  Tensor out = new_tensor(x.ndim, shape);
  std::memset(out.data, 0, out.numel() * sizeof(float));
  add_into(out, x);
  return out;
}

// Removes dimension d (of extent 1) from a contiguous tensor.
Tensor squeeze(const Tensor& x, int d) {
  Tensor t = x;
  t.ndim = x.ndim - 1;
  for (int i = d; i < t.ndim; i++) {
    t.shape[i] = x.shape[i + 1];
    t.strides[i] = x.strides[i + 1];
  }
  return t;
}

// *d_x += op(g, other), broadcast, summed back to x's shape (nothing for a null d_x). The
// adjoint is materialised before the temporaries, which the op's result is one of.
template <class Op>
void add_broadcast_result(Tensor* d_x, const Tensor& x, const Tensor& g, const Tensor& other, Op op) {
  if (!d_x) return;
  Tensor& d = materialised(d_x, x);
  Temporaries scratch;
  add_into(d, broadcast_binary(g, other, op));
}

}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) {
  read_by("operator+", a, b);
  return broadcast_binary(a, b, [](float x, float y) { return x + y; });
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  read_by("operator-", a, b);
  return broadcast_binary(a, b, [](float x, float y) { return x - y; });
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  read_by("operator*", a, b);
  return broadcast_binary(a, b, [](float x, float y) { return x * y; });
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  read_by("operator/", a, b);
  return broadcast_binary(a, b, [](float x, float y) { return x / y; });
}
Tensor operator-(const Tensor& a) {
  read_by("operator-", a);
  const Tensor out = zeros_like(a);
  add_into(out, a, -1.0f);
  return out;
}

Tensor sum(const Tensor& x) {
  read_by("sum", x);
  const Tensor total = new_tensor(0, nullptr);
  total.data[0] = 0;
  add_into(total, x);
  return total;
}

Tensor sum(const Tensor& x, int dim) {
  const int d = normalised_dim(x, dim, "sum");
  read_by("sum", x);
  return squeeze(sum_keepdim(x, d), d);
}

Tensor mean(const Tensor& x) {
  const Tensor s = sum(x);
  s.data[0] /= float(x.numel());
  return s;
}

Tensor mean(const Tensor& x, int dim) {
  const Tensor s = sum(x, dim);
  const float scale = 1.0f / float(x.size(dim));
  apply_in_place(s, [scale](float v) { return v * scale; });
  return s;
}

namespace custom_derivatives {

void operator_plus_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b) {
  if (d_result.empty()) return;
  if (d_a) add_into(materialised(d_a, a), d_result);
  if (d_b) add_into(materialised(d_b, b), d_result);
}

void operator_minus_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b) {
  if (d_result.empty()) return;
  if (d_a) add_into(materialised(d_a, a), d_result);
  if (d_b) add_into(materialised(d_b, b), d_result, -1.0f);
}

void operator_star_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b) {
  if (d_result.empty()) return;
  const auto times = [](float x, float y) { return x * y; };
  add_broadcast_result(d_a, a, d_result, b, times);
  add_broadcast_result(d_b, b, d_result, a, times);
}

void operator_slash_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b) {
  if (d_result.empty()) return;
  const auto over = [](float g, float y) { return g / y; };
  add_broadcast_result(d_a, a, d_result, b, over);
  // d(a/b)/db = -a/b²: g/b, times -a, over b.
  if (d_b) {
    Tensor& d = materialised(d_b, b);
    Temporaries scratch;
    const Tensor g_a_over_b =
        broadcast_binary(broadcast_binary(d_result, b, over), a, [](float g, float x) { return -g * x; });
    add_into(d, broadcast_binary(g_a_over_b, b, over));
  }
}

void operator_minus_pullback(const Tensor& a, Tensor d_result, Tensor* d_a) {
  if (d_result.empty() || !d_a) return;
  add_into(materialised(d_a, a), d_result, -1.0f);
}

void sum_pullback(const Tensor& x, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  add_into(materialised(d_x, x), d_result);
}

void sum_pullback(const Tensor& x, int dim, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  add_into(materialised(d_x, x), unsqueeze(d_result, normalised_dim(x, dim, "sum")));
}

void mean_pullback(const Tensor& x, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  add_into(materialised(d_x, x), d_result, 1.0f / float(x.numel()));
}

void mean_pullback(const Tensor& x, int dim, Tensor d_result, Tensor* d_x) {
  if (d_result.empty() || !d_x) return;
  const int d = normalised_dim(x, dim, "mean");
  add_into(materialised(d_x, x), unsqueeze(d_result, d), 1.0f / float(x.shape[d]));
}

}  // namespace custom_derivatives
}  // namespace adjoint
