// Tensor views, the arena, broadcasting and adjoint accumulation.
#include "adjoint/tensor.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "strided.hpp"

namespace adjoint {

using namespace tensor_detail;

namespace tensor_detail {

std::string shape_string(const Tensor& x) {
  std::string s = "(";
  for (int d = 0; d < x.ndim; d++) {
    if (d) s += ',';
    s += std::to_string(x.shape[d]);
  }
  return s + ")";
}

void fail(const char* op, const std::string& what) { throw std::invalid_argument(std::string(op) + ": " + what); }

Tensor new_tensor(int ndim, const int* shape) {
  require(ndim >= 0 && ndim <= kMaxTensorDims, "tensor", [&] { return std::string("at most 4 dimensions"); });
  Tensor t;
  t.ndim = ndim;
  std::size_t n = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    require(shape[d] >= 0, "tensor", [&] { return std::string("negative extent"); });
    t.shape[d] = shape[d];
    t.strides[d] = std::ptrdiff_t(n);
    n *= std::size_t(shape[d]);
  }
  t.data = current_arena().allocate(n);
  return t;
}

Tensor dense_view(float* data, const Tensor& like) {
  Tensor t = like;
  t.data = data;
  std::ptrdiff_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; d--) {
    t.strides[d] = stride;
    stride *= t.shape[d];
  }
  return t;
}

Strided4 broadcast_to(const Tensor& x, const int shape4[kMaxTensorDims]) {
  Strided4 s{x.data, {}, {}};
  const int pad = kMaxTensorDims - x.ndim;
  for (int d = 0; d < kMaxTensorDims; d++) {
    const int extent = d < pad ? 1 : x.shape[d - pad];
    s.shape[d] = shape4[d];
    s.strides[d] = (d < pad || extent == 1) ? 0 : x.strides[d - pad];
  }
  return s;
}

int broadcast_shape(const Tensor& a, const Tensor& b, int out_shape[kMaxTensorDims]) {
  const int ndim = std::max(a.ndim, b.ndim);
  for (int d = 0; d < ndim; d++) {
    const int ea = d < ndim - a.ndim ? 1 : a.shape[d - (ndim - a.ndim)];
    const int eb = d < ndim - b.ndim ? 1 : b.shape[d - (ndim - b.ndim)];
    require(ea == eb || ea == 1 || eb == 1, "broadcast",
            [&] { return std::string("shapes " + shape_string(a) + " and " + shape_string(b) + " do not broadcast"); });
    out_shape[d] = ea == 1 ? eb : ea;
  }
  return ndim;
}

void add_into(const Tensor& into, const Tensor& from, float scale) {
  int shape[kMaxTensorDims];
  const int ndim = broadcast_shape(into, from, shape);
  int shape4[kMaxTensorDims] = {1, 1, 1, 1};
  std::copy(shape, shape + ndim, shape4 + kMaxTensorDims - ndim);
  const Strided4 dst = broadcast_to(into, shape4), src = broadcast_to(from, shape4);
  float* out = into.data;
  if (into.is_contiguous() && from.is_contiguous() && into.same_shape(from)) {
    const std::size_t n = into.numel();
    const float* in = from.data;
#pragma omp parallel for simd
    for (std::size_t i = 0; i < n; i++) out[i] += scale * in[i];
    return;
  }
  // Dimensions along which `into` repeats receive sums: only safe to split by threads when
  // there are none.
  bool reduces = false;
  for (int d = 0; d < kMaxTensorDims; d++) reduces |= dst.strides[d] == 0 && shape4[d] > 1;
#pragma omp parallel for collapse(2) if (!reduces)
  for (int i0 = 0; i0 < shape4[0]; i0++)
    for (int i1 = 0; i1 < shape4[1]; i1++)
      for (int i2 = 0; i2 < shape4[2]; i2++)
        for (int i3 = 0; i3 < shape4[3]; i3++)
          out[dst.offset(i0, i1, i2, i3)] += scale * src.data[src.offset(i0, i1, i2, i3)];
}

Tensor unsqueeze(const Tensor& x, int dim) {
  require(x.ndim < kMaxTensorDims, "unsqueeze", [&] { return std::string("already 4 dimensions"); });
  Tensor t = x;
  t.ndim = x.ndim + 1;
  for (int d = x.ndim; d > dim; d--) {
    t.shape[d] = x.shape[d - 1];
    t.strides[d] = x.strides[d - 1];
  }
  t.shape[dim] = 1;
  t.strides[dim] = 0;
  return t;
}

void adopt_or_add(Tensor* d, const Tensor& fresh) {
  if (!d) return;
  if (d->empty()) {
    *d = fresh;
  } else {
    add_into(*d, fresh);
  }
}

Tensor& materialised(Tensor* d, const Tensor& x) {
  if (d->empty()) *d = zeros_like(x);
  return *d;
}

}  // namespace tensor_detail

// ---- Tensor ----

std::size_t Tensor::numel() const {
  std::size_t n = 1;
  for (int d = 0; d < ndim; d++) n *= std::size_t(shape[d]);
  return n;
}

int Tensor::size(int dim) const {
  const int d = dim < 0 ? dim + ndim : dim;
  require(d >= 0 && d < ndim, "size",
          [&] { return std::string("dimension " + std::to_string(dim) + " of " + shape_string(*this)); });
  return shape[d];
}

bool Tensor::is_contiguous() const {
  std::ptrdiff_t expected = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

bool Tensor::same_shape(const Tensor& other) const {
  return ndim == other.ndim && std::equal(shape, shape + ndim, other.shape);
}

namespace {

// The shape of view/reshape: the given dims up to the first kNoDim, one -1 inferred from numel.
int view_shape(std::size_t numel, const int (&dims)[kMaxTensorDims], int out[kMaxTensorDims]) {
  int ndim = 0, infer = -1;
  std::size_t known = 1;
  for (; ndim < kMaxTensorDims && dims[ndim] != kNoDim; ndim++) {
    out[ndim] = dims[ndim];
    if (dims[ndim] == -1) {
      require(infer < 0, "view", [&] { return std::string("more than one -1"); });
      infer = ndim;
    } else {
      require(dims[ndim] >= 0, "view", [&] { return std::string("negative extent"); });
      known *= std::size_t(dims[ndim]);
    }
  }
  if (infer >= 0) {
    require(known > 0 && numel % known == 0, "view", [&] { return std::string("cannot infer the -1 extent"); });
    out[infer] = int(numel / known);
    known *= std::size_t(out[infer]);
  }
  require(known == numel, "view",
          [&] { return std::string(std::to_string(numel) + " elements do not fit the new shape"); });
  return ndim;
}

}  // namespace

Tensor Tensor::view(int d0, int d1, int d2, int d3) const {
  require(is_contiguous(), "view",
          [&] { return std::string("needs a contiguous tensor (use reshape), got strided " + shape_string(*this)); });
  int shape_out[kMaxTensorDims];
  const int n = view_shape(numel(), {d0, d1, d2, d3}, shape_out);
  Tensor t;
  t.data = data;
  t.ndim = n;
  std::ptrdiff_t stride = 1;
  for (int d = n - 1; d >= 0; d--) {
    t.shape[d] = shape_out[d];
    t.strides[d] = stride;
    stride *= shape_out[d];
  }
  return t;
}

Tensor Tensor::reshape(int d0, int d1, int d2, int d3) const { return contiguous().view(d0, d1, d2, d3); }

Tensor Tensor::transpose(int dim0, int dim1) const {
  const int a = dim0 < 0 ? dim0 + ndim : dim0, b = dim1 < 0 ? dim1 + ndim : dim1;
  require(a >= 0 && a < ndim && b >= 0 && b < ndim, "transpose",
          [&] { return std::string("dimension out of range for " + shape_string(*this)); });
  Tensor t = *this;
  std::swap(t.shape[a], t.shape[b]);
  std::swap(t.strides[a], t.strides[b]);
  return t;
}

Tensor Tensor::slice(int dim, int start, int end) const {
  const int d = dim < 0 ? dim + ndim : dim;
  require(d >= 0 && d < ndim, "slice",
          [&] { return std::string("dimension out of range for " + shape_string(*this)); });
  require(0 <= start && start <= end && end <= shape[d], "slice", [&] {
    return std::string("range " + std::to_string(start) + ".." + std::to_string(end) + " outside " +
                       shape_string(*this));
  });
  Tensor t = *this;
  t.data = data + start * strides[d];
  t.shape[d] = end - start;
  return t;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor t = empty_like(*this);
  // t is fresh: zero it and add, the one strided copy loop there is.
  std::memset(t.data, 0, t.numel() * sizeof(float));
  add_into(t, *this);
  return t;
}

// ---- Arena ----

Arena::Arena(std::size_t initial_floats) {
  blocks_.emplace_back(std::max<std::size_t>(initial_floats, 16));
  block_allocations_ = 1;
}

std::size_t Arena::capacity_floats() const {
  std::size_t n = 0;
  for (const FloatArena& b : blocks_) n += b.size();
  return n;
}

float* Arena::allocate(std::size_t count) {
  const std::size_t padded = (count + 15) / 16 * 16;  // keeps every tensor 64-byte aligned
  while (offset_ + padded > blocks_[block_].size()) {
    if (block_ + 1 == blocks_.size()) {
      // Only in a step larger than any before (reset() then replaces the blocks by one of the
      // step's size): pages are touched as they are used, so the capacity doubling leaves unused
      // pages out of the RSS (docs/performance.md, Memory).
      blocks_.emplace_back(std::max(padded, capacity_floats()), /*touch_now*/ false);
      block_allocations_++;
    }
    block_++;
    offset_ = 0;
  }
  float* p = blocks_[block_].data() + offset_;
  offset_ += padded;
  used_ += padded;
  peak_ = std::max(peak_, used_);
  allocations_.push_back({p, padded, nullptr, 0, false});
  return p;
}

Arena::Allocation* Arena::allocation_holding(const float* p) {
  bool here = false;
  for (const FloatArena& b : blocks_) here |= p >= b.data() && p < b.data() + b.size();
  if (!here) return nullptr;  // parameters, gradients, another arena's tensors
  // Backwards: ops mostly read what was allocated last.
  for (std::size_t i = allocations_.size(); i-- > 0;) {
    Allocation& a = allocations_[i];
    if (p >= a.begin && p < a.begin + a.floats) return &a;
  }
  return nullptr;
}

void Arena::note_read(const Tensor& x, const char* op) {
  Allocation* a = x.empty() ? nullptr : allocation_holding(x.data);
  if (!a) return;
  if (a->gradient)
    throw std::logic_error(std::string(op) + ": reads a tensor whose storage " + a->reader +
                           "'s pullback gave over to its gradient");
  a->reader = op;
  a->readers++;
}

bool Arena::claim_for_gradient(const Tensor& x, const char* op) {
  if (private_from_ >= allocations_.size() || x.empty()) return false;
  Allocation* a = allocation_holding(x.data);
  if (!a || a < &allocations_[private_from_] || a->gradient || a->readers != 1 || std::strcmp(a->reader, op) != 0)
    return false;
  a->gradient = true;
  return true;
}

void Arena::reset() {
  if (blocks_.size() > 1 && peak_ > blocks_[0].size()) {
    // One block of what this step needed: the next step allocates in it without growing.
    const std::size_t needed = peak_;
    blocks_.clear();
    blocks_.emplace_back(needed);
    block_allocations_++;
  }
  block_ = 0;
  offset_ = 0;
  used_ = 0;
  peak_ = 0;
  allocations_.clear();
}

void Arena::release(const Mark& m) {
  block_ = m.block;
  offset_ = m.offset;
  used_ = m.used;
  allocations_.resize(m.allocations);
}

namespace {
thread_local Arena* current = nullptr;
}

ArenaScope::ArenaScope(Arena& arena) : previous_(current) { current = &arena; }
ArenaScope::~ArenaScope() { current = previous_; }

Arena& current_arena() {
  if (!current) throw std::logic_error("tensor op outside an ArenaScope: no arena to allocate in");
  return *current;
}

PrivateIntermediates::PrivateIntermediates() : arena_(current_arena()), previous_(arena_.private_from_) {
  arena_.private_from_ = std::min(previous_, arena_.allocations_.size());
}
PrivateIntermediates::~PrivateIntermediates() { arena_.private_from_ = previous_; }

// ---- construction ----

Tensor tensor_view(float* data, std::initializer_list<int> shape) {
  require(shape.size() <= kMaxTensorDims, "tensor_view", [&] { return std::string("at most 4 dimensions"); });
  Tensor t;
  t.data = data;
  t.ndim = int(shape.size());
  std::ptrdiff_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; d--) {
    t.shape[d] = shape.begin()[d];
    t.strides[d] = stride;
    stride *= t.shape[d];
  }
  return t;
}

Tensor empty_tensor(std::initializer_list<int> shape) {
  require(shape.size() <= kMaxTensorDims, "empty_tensor", [&] { return std::string("at most 4 dimensions"); });
  return new_tensor(int(shape.size()), shape.begin());
}

Tensor empty_like(const Tensor& x) { return new_tensor(x.ndim, x.shape); }

Tensor zeros_like(const Tensor& x) {
  Tensor t = empty_like(x);
  std::memset(t.data, 0, t.numel() * sizeof(float));
  return t;
}

Tensor zeros(std::initializer_list<int> shape) {
  Tensor t = empty_tensor(shape);
  std::memset(t.data, 0, t.numel() * sizeof(float));
  return t;
}

void accumulate_adjoint(Tensor& into, const Tensor& from) {
  if (from.empty()) return;
  if (into.empty()) {
    // A copy of `from`, never `from` itself: two adjoints must not share storage.
    into = zeros_like(from);
  }
  add_into(into, from);
}

// ---- the views' pullbacks ----

namespace custom_derivatives::class_functions {

void view_pullback(const Tensor* self, int, int, int, int, Tensor d_result, Tensor* d_self) {
  if (d_result.empty() || !d_self) return;
  Tensor& d = materialised(d_self, *self);
  Temporaries scratch;
  add_into(d, dense_view(d_result.contiguous().data, *self));
}

void reshape_pullback(const Tensor* self, int d0, int d1, int d2, int d3, Tensor d_result, Tensor* d_self) {
  view_pullback(self, d0, d1, d2, d3, d_result, d_self);
}

void transpose_pullback(const Tensor* self, int dim0, int dim1, Tensor d_result, Tensor* d_self) {
  if (d_result.empty() || !d_self) return;
  add_into(materialised(d_self, *self), d_result.transpose(dim0, dim1));
}

void slice_pullback(const Tensor* self, int dim, int start, int end, Tensor d_result, Tensor* d_self) {
  if (d_result.empty() || !d_self) return;
  add_into(materialised(d_self, *self).slice(dim, start, end), d_result);
}

void contiguous_pullback(const Tensor* self, Tensor d_result, Tensor* d_self) {
  if (d_result.empty() || !d_self) return;
  add_into(materialised(d_self, *self), d_result);
}

}  // namespace custom_derivatives::class_functions
}  // namespace adjoint
