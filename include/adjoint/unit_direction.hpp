#pragma once
// The direction of a derivative along one element of a pointer parameter (`adjoint::derivative(f,
// "x[2]")` of `const double* x`) or of a function object's pointer member (`"arr[3]"` of `double*
// arr`): tangent memory that is 0 everywhere but 1 at that element (0 there too for the object's
// other pointer members, which the derivative is not along). The pointer's length is unknown, so the
// memory is a reservation of address space far larger than any array (kSpan bytes either side of
// the element): the system fills a page with zeros when it is first touched, so the direction costs
// only the pages the function's tangent reads or writes, and an index beyond the reservation
// reaches an inaccessible guard instead of another object.
// Included by adjoint/tangent.hpp.
#include <sys/mman.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace adjoint::detail {

template <class T>
class unit_direction {
 public:
  explicit unit_direction(long element, T at_element = T(1)) {
    void* region =
        mmap(nullptr, kGuard + 2 * kSpan + kGuard, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED || mprotect(static_cast<char*>(region) + kGuard, 2 * kSpan, PROT_READ | PROT_WRITE) != 0) {
      std::fprintf(stderr, "adjoint::derivative: cannot reserve the direction of a pointer's element\n");
      std::exit(1);
    }
    region_ = region;
    T* one = reinterpret_cast<T*>(static_cast<char*>(region) + kGuard + kSpan);
    *one = at_element;
    data_ = one - element;
  }
  unit_direction(const unit_direction&) = delete;
  unit_direction& operator=(const unit_direction&) = delete;
  ~unit_direction() { munmap(region_, kGuard + 2 * kSpan + kGuard); }
  // The direction's memory, indexed as the pointer is: data()[element] is 1.
  T* data() const { return data_; }

 private:
  static constexpr std::size_t kSpan = std::size_t(1) << 40;   // 1 TiB either side of the element
  static constexpr std::size_t kGuard = std::size_t(1) << 30;  // inaccessible beyond it
  void* region_ = nullptr;
  T* data_ = nullptr;
};

}  // namespace adjoint::detail
