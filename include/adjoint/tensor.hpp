// adjoint::Tensor: float32 views of up to 4 dimensions over arena storage, the differentiable
// ops on them, and one custom pullback per op so that adjc can differentiate code written with
// them (conventions: docs/tensor.md and docs/adjc.md).
//
// A Tensor is a trivially copyable handle (pointer, shape, strides in elements); it owns nothing.
// Ops allocate their results in the calling thread's current Arena (see ArenaScope), so a
// training step is a sequence of bump allocations that one Arena::reset() releases. A
// default-constructed Tensor is empty: the zero adjoint.
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "adjoint/gpt2.hpp"

namespace adjoint {

class LoraAdapters;  // adjoint/lora.hpp

constexpr int kMaxTensorDims = 4;
// Marks an unused trailing dimension of Tensor::view and reshape.
constexpr int kNoDim = INT_MIN;

struct Tensor {
  float* data = nullptr;
  int ndim = 0;
  int shape[kMaxTensorDims] = {0, 0, 0, 0};
  std::ptrdiff_t strides[kMaxTensorDims] = {0, 0, 0, 0};  // in elements

  bool empty() const { return data == nullptr; }
  std::size_t numel() const;
  // The extent of dimension dim; negative dims count from the end.
  int size(int dim) const;
  bool is_contiguous() const;
  bool same_shape(const Tensor& other) const;

  // The same elements with a new shape (contiguous tensors only); one dimension may be -1.
  Tensor view(int d0, int d1 = kNoDim, int d2 = kNoDim, int d3 = kNoDim) const;
  // view() of this tensor, or of a contiguous copy when this one is strided.
  Tensor reshape(int d0, int d1 = kNoDim, int d2 = kNoDim, int d3 = kNoDim) const;
  // Dimensions dim0 and dim1 swapped (a strided view, no copy).
  Tensor transpose(int dim0, int dim1) const;
  // Indices [start, end) of dimension dim (a view, no copy).
  Tensor slice(int dim, int start, int end) const;
  // This tensor, or a contiguous copy of it.
  Tensor contiguous() const;
};
// adjc copies tensors as values (and tapes them by value): a handle, nothing more.
static_assert(std::is_trivially_copyable_v<Tensor>);

// A bump allocator of floats for activations and adjoints. It grows by whole blocks while a
// step's needs are unknown; reset() releases everything at once and, when the step needed more
// than one block, replaces them by a single block of the step's total, so from the second step
// on allocation never reaches malloc.
class Arena {
 public:
  explicit Arena(std::size_t initial_floats = std::size_t(1) << 20);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  // count floats, 64-byte aligned, uninitialised (they hold earlier steps' values).
  float* allocate(std::size_t count);
  // Invalidates every tensor allocated here.
  void reset();
  // A point to roll back to: release(mark()) frees what was allocated after it (an op's
  // temporaries), keeping everything before.
  struct Mark {
    std::size_t block, offset, used, allocations;
  };
  Mark mark() const { return {block_, offset_, used_, allocations_.size()}; }
  void release(const Mark& m);
  // The arena records which ops read each of its allocations, so that a pullback can tell when it
  // may write its gradient over a forward tensor (PrivateIntermediates; docs/tensor.md,
  // "Storage"). Every op calls note_read for each tensor it takes (memory outside this arena is
  // ignored); it throws std::logic_error when x's storage was given over to a gradient.
  void note_read(const Tensor& x, const char* op);
  // True when x lies in an intermediate of a running PrivateIntermediates scope that `op` alone
  // read, once; its storage is then given over to a gradient (a later note_read of it throws).
  bool claim_for_gradient(const Tensor& x, const char* op);
  std::size_t used_floats() const { return used_; }
  // The most this step has held at once (what reset() sizes the single block by).
  std::size_t peak_floats() const { return peak_; }
  std::size_t capacity_floats() const;
  // How many blocks were ever obtained from the system (a warmed-up step adds none).
  std::size_t block_allocations() const { return block_allocations_; }

 private:
  friend class PrivateIntermediates;
  struct Allocation {
    const float* begin;
    std::size_t floats;
    const char* reader;  // the op that read it, the last one when several did
    int readers;         // how many ops read it (or a view into it)
    bool gradient;       // a pullback wrote a gradient over it
  };
  // The allocation holding p, or nullptr when p is not in this step's allocations.
  Allocation* allocation_holding(const float* p);

  std::vector<FloatArena> blocks_;
  std::size_t block_ = 0, offset_ = 0, used_ = 0, peak_ = 0, block_allocations_ = 0;
  std::vector<Allocation> allocations_;  // this step's, in the order they were made
  std::size_t private_from_ = SIZE_MAX;  // allocations_[i], i >= private_from_: private intermediates
};

// Declares, for its lifetime, that what the current arena allocates is the intermediates of one
// differentiated function's forward and reverse sweeps (as nn::gpt2_loss_gradient runs them): the
// function returns none of them and reads tensor data only through ops, so an intermediate that
// one op alone read is read again only by that op's pullback, which may then write its gradient
// over it (cross_entropy's logits). Scopes nest (an inner one adds nothing to an outer one).
class PrivateIntermediates {
 public:
  PrivateIntermediates();
  ~PrivateIntermediates();
  PrivateIntermediates(const PrivateIntermediates&) = delete;
  PrivateIntermediates& operator=(const PrivateIntermediates&) = delete;

 private:
  Arena& arena_;
  std::size_t previous_;
};

// Ops allocate in the calling thread's current arena: the innermost live ArenaScope's.
class ArenaScope {
 public:
  explicit ArenaScope(Arena& arena);
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* previous_;
};
// Throws std::logic_error when no ArenaScope is live on this thread.
Arena& current_arena();

// A tensor over memory someone else owns (parameters, gradients): contiguous, shape as given.
Tensor tensor_view(float* data, std::initializer_list<int> shape);
// A new contiguous tensor in the current arena, uninitialised or zeroed.
Tensor empty_tensor(std::initializer_list<int> shape);
Tensor zeros(std::initializer_list<int> shape);
Tensor empty_like(const Tensor& x);
Tensor zeros_like(const Tensor& x);

// into += from; an empty `into` becomes a zeroed tensor of from's shape first; an empty `from`
// does nothing. When `into` has fewer elements than from's shape broadcasts, from is summed
// over the broadcast dimensions (the adjoint of a broadcast).
void accumulate_adjoint(Tensor& into, const Tensor& from);

// Element-wise with NumPy broadcasting (shapes aligned at the last dimension).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);

// a (M,K) or (S,M,K) or (S0,S1,M,K) · b (K,N) or with the same leading dims -> (..., M, N).
// Either operand may be a transposed view of its last two dims (no copy: BLAS transposes).
Tensor matmul(const Tensor& a, const Tensor& b);
// x (..., C) · weight (OC, C)ᵀ + bias (OC) -> (..., OC); bias may be empty. The arrays engine's layout.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// linear plus the outputs of the LoRA adapters in the base's parameter tensor `tensor` of layer
// `layer` (LoraAdapters::add_output); adapters null: linear alone. lora is the adapters'
// parameters as one tensor (params_memory(), or empty without adapters): what a LoRA gradient
// request differentiates, whose adjoint must be the adapters' gradient arena (grads_memory()).
Tensor adapted_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& lora,
                      const LoraAdapters* adapters, int tensor, int layer);
// Sum or mean of all elements (a 0-dim tensor), or over one dimension (which is dropped).
Tensor sum(const Tensor& x);
Tensor sum(const Tensor& x, int dim);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, int dim);
// table (V, C), idx (B, T) in [0, V) -> (B, T, C)
Tensor embedding(const Tensor& table, const int* idx, int B, int T);
// Over the last dimension C: x (..., C), weight (C), bias (C); eps 1e-5 as GPT-2.
Tensor layernorm(const Tensor& x, const Tensor& weight, const Tensor& bias);
// Over the last dimension.
Tensor softmax(const Tensor& x);
// GELU, tanh approximation (GPT-2's).
Tensor gelu(const Tensor& x);
// qkv (B, T, 3C) holding q, k, v side by side -> (B, T, C), n_head heads.
Tensor causal_attention(const Tensor& qkv, int n_head);
// Root-mean-square normalisation over the last dimension C: x (..., C) / sqrt(mean(x²) + eps) · weight (C).
Tensor rmsnorm(const Tensor& x, const Tensor& weight, float eps);
// Rotary position embedding, Meta's pairing: x (B, T, heads, hs); in each of the first rotated_heads
// heads at position t, channels (2i, 2i+1) are rotated by the angle whose cosine and sine are
// cos[t, i], sin[t, i] (cos, sin: contiguous (≥ T, hs/2)); the other heads are copied.
Tensor rotary(const Tensor& x, const Tensor& cos, const Tensor& sin, int rotated_heads);
// silu(gate) · up element-wise, silu(a) = a·σ(a) (gate and up of one shape): SwiGLU's gate.
Tensor swiglu(const Tensor& gate, const Tensor& up);
// Causal attention with grouped query heads: qkv (B, T, n_head + 2·n_kv_head, hs) holding per
// position the query heads, then the key heads, then the value heads -> (B, T, n_head·hs). Query
// head h reads key/value head h / (n_head / n_kv_head), shared, not copied.
Tensor grouped_attention(const Tensor& qkv, int n_head, int n_kv_head);
// Mean over rows of -log softmax(logits[row, :V])[target]: logits (..., Vp), the last Vp - V
// columns (padding) take no part; targets has one id in [0, V) per row.
float cross_entropy(const Tensor& logits, const int* targets, int V);

// The ops' pullbacks (adjc's custom-derivative convention): the op's parameters, then the
// result's adjoint, then one adjoint per Tensor parameter, ADDED into (accumulate_adjoint), any
// of which may be nullptr. An empty d_result does nothing.
namespace custom_derivatives {

void operator_plus_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b);
void operator_minus_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b);
void operator_star_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b);
void operator_slash_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b);
void operator_minus_pullback(const Tensor& a, Tensor d_result, Tensor* d_a);
void matmul_pullback(const Tensor& a, const Tensor& b, Tensor d_result, Tensor* d_a, Tensor* d_b);
void linear_pullback(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor d_result, Tensor* d_x,
                     Tensor* d_weight, Tensor* d_bias);
void adapted_linear_pullback(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& lora,
                             const LoraAdapters* adapters, int tensor, int layer, Tensor d_result, Tensor* d_x,
                             Tensor* d_weight, Tensor* d_bias, Tensor* d_lora, LoraAdapters* d_adapters);
void sum_pullback(const Tensor& x, Tensor d_result, Tensor* d_x);
void sum_pullback(const Tensor& x, int dim, Tensor d_result, Tensor* d_x);
void mean_pullback(const Tensor& x, Tensor d_result, Tensor* d_x);
void mean_pullback(const Tensor& x, int dim, Tensor d_result, Tensor* d_x);
void embedding_pullback(const Tensor& table, const int* idx, int B, int T, Tensor d_result, Tensor* d_table);
void layernorm_pullback(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor d_result, Tensor* d_x,
                        Tensor* d_weight, Tensor* d_bias);
void softmax_pullback(const Tensor& x, Tensor d_result, Tensor* d_x);
void gelu_pullback(const Tensor& x, Tensor d_result, Tensor* d_x);
void causal_attention_pullback(const Tensor& qkv, int n_head, Tensor d_result, Tensor* d_qkv);
void rmsnorm_pullback(const Tensor& x, const Tensor& weight, float eps, Tensor d_result, Tensor* d_x, Tensor* d_weight,
                      float* d_eps);
void rotary_pullback(const Tensor& x, const Tensor& cos, const Tensor& sin, int rotated_heads, Tensor d_result,
                     Tensor* d_x, Tensor* d_cos, Tensor* d_sin);
void swiglu_pullback(const Tensor& gate, const Tensor& up, Tensor d_result, Tensor* d_gate, Tensor* d_up);
void grouped_attention_pullback(const Tensor& qkv, int n_head, int n_kv_head, Tensor d_result, Tensor* d_qkv);
void cross_entropy_pullback(const Tensor& logits, const int* targets, int V, float d_result, Tensor* d_logits);

// Tensor's member functions.
namespace class_functions {
void view_pullback(const Tensor* self, int d0, int d1, int d2, int d3, Tensor d_result, Tensor* d_self);
void reshape_pullback(const Tensor* self, int d0, int d1, int d2, int d3, Tensor d_result, Tensor* d_self);
void transpose_pullback(const Tensor* self, int dim0, int dim1, Tensor d_result, Tensor* d_self);
void slice_pullback(const Tensor* self, int dim, int start, int end, Tensor d_result, Tensor* d_self);
void contiguous_pullback(const Tensor* self, Tensor d_result, Tensor* d_self);
}  // namespace class_functions

}  // namespace custom_derivatives
}  // namespace adjoint
