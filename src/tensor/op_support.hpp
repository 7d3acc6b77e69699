// What the Tensor ops share (linear_ops.cpp, layer_ops.cpp, loss_ops.cpp): BLAS views of
// tensors, shape checks, and the shapes of pullback that accumulate into or overwrite an adjoint.
#pragma once
#include <algorithm>
#include <string>

#include "adjoint/gemm.hpp"
#include "adjoint/tensor.hpp"
#include "strided.hpp"

namespace adjoint::tensor_detail {

// A logical (rows, cols) matrix as BLAS sees it: row-major with leading dimension ld, or the
// transpose of a row-major (cols, rows) matrix.
struct Matrix {
  const float* data;
  int rows, cols;
  int ld;
  bool transposed;
  Matrix t() const { return {data, cols, rows, ld, !transposed}; }
};

// The last two dims of x at data as a Matrix, or false when neither layout fits BLAS.
inline bool as_matrix(const Tensor& x, const float* data, Matrix* m) {
  const int rows = x.shape[x.ndim - 2], cols = x.shape[x.ndim - 1];
  const std::ptrdiff_t rs = x.strides[x.ndim - 2], cs = x.strides[x.ndim - 1];
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= cols)) {
    *m = {data, rows, cols, int(rows == 1 ? std::max(cols, 1) : rs), false};
    return true;
  }
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
    *m = {data, rows, cols, int(cols == 1 ? std::max(rows, 1) : cs), true};
    return true;
  }
  return false;
}

// c (a.rows, b.cols), row-major with leading dimension ldc, = a · b + beta c
inline void gemm(float* c, int ldc, const Matrix& a, const Matrix& b, float beta) {
  adjoint::gemm(a.transposed, b.transposed, a.rows, b.cols, a.cols, 1.0f, a.data, a.ld, b.data, b.ld, beta, c, ldc);
}

// x, or a contiguous copy when BLAS cannot read its last two dims as they are.
inline Tensor blas_readable(const Tensor& x) {
  Matrix m;
  return as_matrix(x, x.data, &m) ? x : x.contiguous();
}

// Leading (batch) extents of a tensor with matrices in its last two dims, padded to 2.
inline void batch_dims(const Tensor& x, int (&n)[2], std::ptrdiff_t (&s)[2]) {
  const int pad = 2 - (x.ndim - 2);
  for (int d = 0; d < 2; d++) {
    n[d] = d < pad ? 1 : x.shape[d - pad];
    s[d] = d < pad ? 0 : x.strides[d - pad];
  }
}

// The row count N and channel count C of x (..., C).
inline void rows_and_channels(const Tensor& x, const char* op, int* N, int* C) {
  require(x.ndim >= 1, op, [&] { return std::string("needs a tensor of at least 1 dimension"); });
  *C = x.shape[x.ndim - 1];
  *N = *C ? int(x.numel() / std::size_t(*C)) : 0;
}

// Same shape as x with the last extent replaced.
inline Tensor new_with_last(const Tensor& x, int last) {
  int shape[kMaxTensorDims];
  std::copy(x.shape, x.shape + x.ndim, shape);
  shape[x.ndim - 1] = last;
  return new_tensor(x.ndim, shape);
}

// *d itself when it is a contiguous tensor to accumulate into, else fresh zeros for a kernel
// whose result is added to *d afterwards (or dropped, for a null d) by finish_kernel_target.
// Allocated before an op's Temporaries, as it outlives them.
inline Tensor kernel_target(Tensor* d, const Tensor& like) {
  if (d && !d->empty() && d->is_contiguous()) return *d;
  return zeros_like(like);
}
inline void finish_kernel_target(Tensor* d, const Tensor& target) {
  if (d && d->data != target.data) adopt_or_add(d, target);
}

// The pullback of a kernel that accumulates one adjoint: backward(target, g) with d's kernel
// target and the contiguous output gradient g, inside the op's temporaries.
template <class Backward>
inline void kernel_pullback(Tensor* d, const Tensor& like, const Tensor& d_result, Backward backward) {
  const Tensor target = kernel_target(d, like);
  {
    Temporaries scratch;
    backward(target.data, d_result.contiguous());
  }
  finish_kernel_target(d, target);
}

// The pullback of a computation that overwrites its output, inside the op's temporaries:
// backward(out) writes the gradient to out, an empty adjoint's new storage, or (out null, when
// *d holds a gradient already) to scratch of its own, and returns where it wrote; that is then
// added to *d.
template <class Backward>
inline void overwriting_pullback(Tensor* d, const Tensor& like, Backward backward) {
  const bool fresh = d->empty();
  const Tensor out = fresh ? empty_like(like) : Tensor{};
  {
    Temporaries scratch;
    float* written = backward(fresh ? out.data : nullptr);
    if (!fresh) add_into(*d, dense_view(written, like));
  }
  if (fresh) *d = out;
}

// The pullback of a kernel over N rows of C channels with a weight and a bias (optional: may be
// empty) that accumulates all three adjoints: backward(dx, dweight, dbias or nullptr, g, x, N, C)
// on contiguous g and x, inside the op's temporaries.
template <class Backward>
inline void weighted_rows_pullback(const char* op, const Tensor& x_in, const Tensor& weight, const Tensor& bias,
                                   const Tensor& d_result, Tensor* d_x, Tensor* d_weight, Tensor* d_bias,
                                   Backward backward) {
  if (d_result.empty()) return;
  int N, C;
  rows_and_channels(x_in, op, &N, &C);
  const Tensor dx = kernel_target(d_x, x_in), dw = kernel_target(d_weight, weight);
  const Tensor db = bias.empty() ? Tensor{} : kernel_target(d_bias, bias);
  {
    Temporaries scratch;
    const Tensor x = x_in.contiguous(), g = d_result.contiguous();
    backward(dx.data, dw.data, db.empty() ? nullptr : db.data, g, x, N, C);
  }
  finish_kernel_target(d_x, dx);
  finish_kernel_target(d_weight, dw);
  if (!bias.empty()) finish_kernel_target(d_bias, db);
}

}  // namespace adjoint::tensor_detail
