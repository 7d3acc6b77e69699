// Shared by the tensor sources: shapes padded to 4 dimensions, broadcasting, and arena-backed
// construction from a shape array.
#pragma once
#include <string>

#include "adjoint/tensor.hpp"

namespace adjoint::tensor_detail {

// A tensor's shape and strides right-aligned into 4 dimensions (leading extents 1).
struct Strided4 {
  const float* data;
  int shape[kMaxTensorDims];
  std::ptrdiff_t strides[kMaxTensorDims];
  std::ptrdiff_t offset(int i0, int i1, int i2, int i3) const {
    return i0 * strides[0] + i1 * strides[1] + i2 * strides[2] + i3 * strides[3];
  }
};

// "(2,3,4)", for error messages.
std::string shape_string(const Tensor& x);
// A new contiguous tensor in the current arena with the given extents.
Tensor new_tensor(int ndim, const int* shape);
// A contiguous tensor of like's shape over data.
Tensor dense_view(float* data, const Tensor& like);
// x padded to 4 dims and broadcast to shape4 (stride 0 along the dimensions it repeats).
Strided4 broadcast_to(const Tensor& x, const int shape4[kMaxTensorDims]);
// The broadcast shape of a and b into out_shape (returns its ndim); throws if incompatible.
int broadcast_shape(const Tensor& a, const Tensor& b, int out_shape[kMaxTensorDims]);
// into += scale * from, where into and from broadcast against each other and the result has
// into's shape: from is repeated along into's extra dimensions and summed along its own.
void add_into(const Tensor& into, const Tensor& from, float scale = 1.0f);
// x with a dimension of extent 1 inserted at dim (a view).
Tensor unsqueeze(const Tensor& x, int dim);
// Adds a freshly computed gradient to *d: adopts its storage when *d is empty (fresh must not be
// referenced elsewhere), otherwise adds. Nothing for a null d.
void adopt_or_add(Tensor* d, const Tensor& fresh);
// *d, materialised as zeros shaped like x when empty.
Tensor& materialised(Tensor* d, const Tensor& x);
[[noreturn]] void fail(const char* op, const std::string& what);
// Frees, when it goes out of scope, what the current arena allocated since it was created: the
// temporaries of an op. Whatever must outlive the op is allocated before it.
class Temporaries {
 public:
  Temporaries() : arena_(current_arena()), mark_(arena_.mark()) {}
  ~Temporaries() { arena_.release(mark_); }
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;

 private:
  Arena& arena_;
  Arena::Mark mark_;
};

// Records in the current arena that the op read each of xs (Arena::note_read): every op calls it
// for the tensors it takes, before allocating its result.
template <class... Tensors>
void read_by(const char* op, const Tensors&... xs) {
  Arena& arena = current_arena();
  (arena.note_read(xs, op), ...);
}

// Throws std::invalid_argument("<op>: <what()>") unless ok. The message is built only on
// failure: ops run inside training steps, which must not allocate.
template <class Message>
void require(bool ok, const char* op, Message what) {
  if (!ok) fail(op, what());
}

}  // namespace adjoint::tensor_detail
