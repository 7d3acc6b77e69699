#pragma once
// adjoint::tape<T>: the stack of values a reverse pass pops in the opposite order the forward
// pass pushed them. Design, guarantees and measurements: docs/tape.md.
//
// Storage is an inline block of InlineCapacity elements inside the object, then a chain of
// fixed-size heap slabs (detail::slab_store). Elements never move once pushed, so pointers and
// references stay valid until the element is popped (or, under a memory budget, until its slab
// is spilled to disk). The hot path touches three pointers and branches once.
//
// One tape is for one thread at a time; give each thread its own (thread_local in OpenMP
// regions), or use adjoint::shared_tape (adjoint/tape/shared_tape.hpp) across threads.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "adjoint/tape/fail.hpp"
#include "adjoint/tape/slab_store.hpp"

namespace adjoint {

// Elements kept inside the tape object before the first heap slab: 64 doubles. Measured by
// bench/tape (BM_ShortTape): tapes of up to this many elements cost no allocation at all,
// while the object stays small enough for the stack and for thread_local use.
template <class T>
inline constexpr std::size_t default_inline_capacity = 512 / sizeof(T) > 0 ? 512 / sizeof(T) : 1;

template <class T, std::size_t InlineCapacity = default_inline_capacity<T>>
class tape {
  static_assert(std::is_trivially_copyable_v<T>,
                "adjoint::tape stores elements as bytes (and may spill them to disk): "
                "T must be trivially copyable");

 public:
  using value_type = T;
  static constexpr std::size_t inline_capacity = InlineCapacity;

  tape() : tape(tape_options{}) {}
  explicit tape(tape_options options)
      : store_(std::move(options), sizeof(T)),
        slab_elements_(store_.slab_bytes() / sizeof(T)),
        begin_(inline_data()),
        top_(begin_),
        end_(begin_ + InlineCapacity) {}

  // Not copyable, not movable: the inline block would move and break reference stability.
  tape(const tape&) = delete;
  tape& operator=(const tape&) = delete;

  void push(const T& value) {
    if (top_ == end_) [[unlikely]]
      return push_into_next_block(value);
    ::new (static_cast<void*>(top_++)) T(value);
  }

  // Throws std::out_of_range on an empty tape.
  T pop() {
    if (top_ == begin_) [[unlikely]]
      step_back();
    return *--top_;
  }

  // The last pushed element. Throws std::out_of_range on an empty tape.
  T& back() {
    if (top_ == begin_) [[unlikely]]
      step_back();
    return top_[-1];
  }

  std::size_t size() const noexcept { return below_ + std::size_t(top_ - begin_); }
  bool empty() const noexcept { return size() == 0; }

  // Drops every element; the slabs stay allocated for reuse.
  void clear() {
    store_.clear();
    enter_inline_block();
    top_ = begin_;
  }

  // Pushes values[0..n) in that order.
  void push_n(const T* values, std::size_t n) {
    while (n > 0) {
      if (top_ == end_) enter_next_block();
      std::size_t m = std::min(n, std::size_t(end_ - top_));
      std::memcpy(static_cast<void*>(top_), values, m * sizeof(T));
      top_ += m;
      values += m;
      n -= m;
    }
  }

  // Pops the last n elements into out[0..n) in the order they were pushed (the inverse of
  // push_n). Throws std::out_of_range, popping nothing, if the tape holds fewer than n.
  void pop_n(T* out, std::size_t n) {
    if (n > size()) {
      ADJOINT_THROW(std::out_of_range("adjoint::tape::pop_n: " + std::to_string(n) +
                              " elements requested, " + std::to_string(size()) + " on the tape"));
    }
    while (n > 0) {
      if (top_ == begin_) step_back();
      std::size_t m = std::min(n, std::size_t(top_ - begin_));
      top_ -= m;
      n -= m;
      std::memcpy(static_cast<void*>(out + n), top_, m * sizeof(T));
    }
  }

  const tape_stats& stats() const noexcept { return store_.stats(); }

 private:
  T* inline_data() noexcept { return reinterpret_cast<T*>(inline_); }

  // Cold path of push: takes a copy first, since `value` may live in a slab that the new
  // block's allocation spills.
  [[gnu::noinline]] void push_into_next_block(T value) {
    enter_next_block();
    ::new (static_cast<void*>(top_++)) T(value);
  }

  // The current block is full: continue in a new slab after it.
  void enter_next_block() {
    std::byte* slab = store_.advance();
    below_ += std::size_t(end_ - begin_);
    begin_ = reinterpret_cast<T*>(slab);
    top_ = begin_;
    end_ = begin_ + slab_elements_;
  }

  // The current block is empty: continue at the end of the (full) block before it.
  [[gnu::noinline]] void step_back() {
    if (below_ == 0) ADJOINT_THROW(std::out_of_range("adjoint::tape: pop or back on an empty tape"));
    std::byte* slab = store_.retreat();
    if (slab == nullptr) {
      enter_inline_block();
    } else {
      begin_ = reinterpret_cast<T*>(slab);
      end_ = begin_ + slab_elements_;
      below_ -= slab_elements_;
    }
    top_ = end_;
  }

  void enter_inline_block() noexcept {
    begin_ = inline_data();
    end_ = begin_ + InlineCapacity;
    below_ = 0;
  }

  detail::slab_store store_;
  std::size_t slab_elements_;
  std::size_t below_ = 0;  // elements in the full blocks before the current one
  T* begin_;               // the current block is [begin_, end_), filled up to top_
  T* top_;
  T* end_;
  alignas(T) std::byte inline_[InlineCapacity > 0 ? InlineCapacity * sizeof(T) : 1];
};

}  // namespace adjoint
