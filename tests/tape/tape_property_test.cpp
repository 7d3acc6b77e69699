// Random interleavings of push/pop/back/push_n/pop_n/clear of mixed sizes, checked step by step
// against std::vector as the model: in memory, and under a budget so tiny that nearly every
// slab goes to disk and comes back.
#include "adjoint/tape.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

struct triple {  // 24 bytes: slabs are not a power-of-two number of elements
  std::uint64_t a, b, c;
  bool operator==(const triple&) const = default;
};

template <class T>
T make(std::uint64_t i) {
  if constexpr (std::is_same_v<T, triple>) {
    return {i, ~i, i * 2654435761u};
  } else {
    return T(i);
  }
}

struct config {
  std::string name;
  std::size_t slab_bytes;
  std::size_t budget_slabs;  // 0 = no budget
};

template <class T, std::size_t N>
void run_random_ops(const config& c, std::uint32_t seed, std::size_t steps) {
  adjoint::tape_options o;
  o.slab_bytes = c.slab_bytes;
  o.memory_budget_bytes = c.budget_slabs * (c.slab_bytes / sizeof(T) * sizeof(T));
  adjoint::tape<T, N> t(o);
  std::vector<T> model;
  std::mt19937 rng(seed);
  std::uint64_t next = 1;
  auto below = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };
  for (std::size_t step = 0; step < steps; ++step) {
    // Bias towards growth in the first half and shrinking in the second, so the tape gets deep
    // (spilling) and then comes back (prefetching), with reversals all along.
    bool grow = below(99) < (step < steps / 2 ? 60u : 40u);
    std::size_t kind = below(9);
    if (grow && kind < 6) {
      T v = make<T>(next++);
      t.push(v);
      model.push_back(v);
    } else if (grow) {
      std::size_t n = below(kind == 9 ? 300 : 20);
      std::vector<T> values(n);
      for (auto& v : values) v = make<T>(next++);
      t.push_n(values.data(), n);
      model.insert(model.end(), values.begin(), values.end());
    } else if (kind < 6 && !model.empty()) {
      ASSERT_EQ(t.back(), model.back()) << "step " << step;
      ASSERT_EQ(t.pop(), model.back()) << "step " << step;
      model.pop_back();
    } else if (kind < 9) {
      std::size_t n = below(std::min<std::size_t>(model.size(), kind == 8 ? 300 : 20));
      std::vector<T> out(n);
      t.pop_n(out.data(), n);
      ASSERT_TRUE(std::equal(out.begin(), out.end(), model.end() - std::ptrdiff_t(n)))
          << "step " << step;
      model.resize(model.size() - n);
    } else if (below(200) == 0) {
      t.clear();
      model.clear();
    }
    ASSERT_EQ(t.size(), model.size()) << "step " << step;
  }
  while (!model.empty()) {
    ASSERT_EQ(t.pop(), model.back());
    model.pop_back();
  }
  EXPECT_TRUE(t.empty());
  if (c.budget_slabs != 0) {
    EXPECT_GT(t.stats().slabs_written, 0u) << c.name << ": the budget did not force spilling";
    EXPECT_GT(t.stats().slabs_read, 0u) << c.name << ": nothing came back from disk";
    EXPECT_LE(t.stats().peak_resident_bytes, o.memory_budget_bytes);
  }
}

const config configs[] = {
    {"in memory, tiny slabs", 64, 0},
    {"in memory, 4 KiB slabs", 4096, 0},
    {"spilling, 3-slab budget", 64, 3},
    {"spilling, 5-slab budget", 96, 5},
    {"spilling, 17-slab budget", 128, 17},
};

TEST(TapeProperty, RandomOpsMatchVectorModel) {
  for (const config& c : configs) {
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(c.name + ", seed " + std::to_string(seed));
      run_random_ops<std::uint64_t, 8>(c, seed, 20000);
      run_random_ops<triple, 0>(c, seed + 100, 8000);
      run_random_ops<std::uint8_t, 3>(c, seed + 200, 8000);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
