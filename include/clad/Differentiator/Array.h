#pragma once
// clad::array (an owning array of adjoints, zeroed) and clad::array_ref (a pointer and a length):
// both pass to execute() where the gradient takes a pointer.
#include <cstddef>
#include <vector>

namespace clad {

template <class T>
class array_ref {
 public:
  array_ref() = default;
  array_ref(T* data, std::size_t size) : data_(data), size_(size) {}
  template <std::size_t N>
  array_ref(T (&data)[N]) : data_(data), size_(N) {}
  explicit array_ref(T* data) : data_(data), size_(1) {}

  operator T*() const { return data_; }
  T* ptr() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) const { return data_[i]; }
  T& operator*() const { return *data_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
class array {
 public:
  array() = default;
  explicit array(std::size_t size) : values_(size, T(0)) {}
  array(const T* data, std::size_t size) : values_(data, data + size) {}

  operator T*() { return values_.data(); }
  operator array_ref<T>() { return {values_.data(), values_.size()}; }
  T* ptr() { return values_.data(); }
  std::size_t size() const { return values_.size(); }
  T& operator[](std::size_t i) { return values_[i]; }
  const T& operator[](std::size_t i) const { return values_[i]; }

 private:
  std::vector<T> values_;
};

}  // namespace clad
