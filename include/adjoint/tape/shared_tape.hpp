#pragma once
// adjoint::shared_tape<T>: one tape used from several threads at once, every operation under a
// mutex. Each push_n/pop_n is atomic, so a thread's record stays contiguous. Pop order across
// threads is whatever the interleaving was; prefer one adjoint::tape per thread (thread_local)
// whenever each thread reverses its own work, and use this only when the work is shared.

#include <cstddef>
#include <mutex>
#include <optional>

#include "adjoint/tape.hpp"

namespace adjoint {

template <class T>
class shared_tape {
 public:
  shared_tape() = default;
  explicit shared_tape(tape_options options) : tape_(std::move(options)) {}

  void push(const T& value) {
    std::lock_guard lock(mutex_);
    tape_.push(value);
  }
  // Throws std::out_of_range on an empty tape.
  T pop() {
    std::lock_guard lock(mutex_);
    return tape_.pop();
  }
  // Another thread may empty the tape between empty() and pop(); this checks and pops at once.
  std::optional<T> try_pop() {
    std::lock_guard lock(mutex_);
    if (tape_.empty()) return std::nullopt;
    return tape_.pop();
  }
  // A copy: a reference could be popped by another thread while in use.
  T back() {
    std::lock_guard lock(mutex_);
    return tape_.back();
  }
  void push_n(const T* values, std::size_t n) {
    std::lock_guard lock(mutex_);
    tape_.push_n(values, n);
  }
  void pop_n(T* out, std::size_t n) {
    std::lock_guard lock(mutex_);
    tape_.pop_n(out, n);
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return tape_.size();
  }
  bool empty() const { return size() == 0; }
  void clear() {
    std::lock_guard lock(mutex_);
    tape_.clear();
  }

 private:
  mutable std::mutex mutex_;
  tape<T> tape_;
};

}  // namespace adjoint
