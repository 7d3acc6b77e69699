// The arena's growth in a step larger than any before: capacity it never used stays out of the RSS.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "adjoint/tensor.hpp"

namespace {

// The process's resident memory in kB (VmRSS), or -1 where /proc does not tell.
long resident_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(TensorArena, GrowthLeavesUnusedCapacityOutOfTheRss) {
  adjoint::Arena arena(16);
  const long before = resident_kb();
  if (before < 0) GTEST_SKIP() << "no VmRSS in /proc/self/status";
  // 48 MB in 1 MB pieces, each written: the blocks double to 64 MB of capacity.
  const std::size_t piece = std::size_t(1) << 18;
  for (int i = 0; i < 48; i++) {
    float* p = arena.allocate(piece);
    std::fill(p, p + piece, 1.0f);
  }
  ASSERT_GE(arena.capacity_floats(), std::size_t(60) << 18);  // the premise: capacity beyond the use
  EXPECT_LT(resident_kb() - before, 56L * 1024);              // the 48 MB used, and little more
}

}  // namespace
