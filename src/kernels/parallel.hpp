// Work splitting shared by the kernels.
#pragma once
#include <omp.h>

#include <algorithm>
#include <utility>

namespace adjoint::kernels {

// The [begin, end) slice of 0..n that the calling OpenMP thread owns: contiguous, fixed for a
// given thread count, so reductions over it are deterministic.
inline std::pair<int, int> thread_range(int n) {
  const int threads = omp_get_num_threads(), id = omp_get_thread_num();
  const int chunk = (n + threads - 1) / threads;
  const int begin = std::min(n, id * chunk);
  return {begin, std::min(n, begin + chunk)};
}

}  // namespace adjoint::kernels
