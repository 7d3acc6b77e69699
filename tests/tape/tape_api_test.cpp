// The tape's API contract: LIFO order across the inline block and slabs, reference stability,
// no heap allocation for short tapes, reuse of slabs, and clear errors for misuse.
#include "adjoint/tape.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <numeric>
#include <vector>

// Counts every heap allocation of this test program, to check "no allocation at all".
static std::atomic<std::size_t> g_allocations{0};
[[gnu::noinline]] void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

adjoint::tape_options small_slabs(std::size_t slab_bytes) {
  adjoint::tape_options o;
  o.slab_bytes = slab_bytes;
  return o;
}

TEST(TapeApi, PopsInReverseOrderAcrossInlineBlockAndSlabs) {
  adjoint::tape<double, 5> t(small_slabs(7 * sizeof(double)));
  for (int i = 0; i < 100; ++i) t.push(i * 0.5);
  EXPECT_EQ(t.size(), 100u);
  for (int i = 99; i >= 0; --i) {
    ASSERT_EQ(t.back(), i * 0.5);
    ASSERT_EQ(t.pop(), i * 0.5);
    ASSERT_EQ(t.size(), std::size_t(i));
  }
  EXPECT_TRUE(t.empty());
}

TEST(TapeApi, BackIsAWritableReference) {
  adjoint::tape<int, 2> t(small_slabs(2 * sizeof(int)));
  for (int i = 0; i < 5; ++i) t.push(i);
  t.back() = 40;
  EXPECT_EQ(t.pop(), 40);
  EXPECT_EQ(t.pop(), 3);
  t.back() += 100;  // the top is now at the end of the previous block
  EXPECT_EQ(t.pop(), 102);
}

TEST(TapeApi, GrowthNeverMovesElements) {
  adjoint::tape<std::uint64_t, 4> t(small_slabs(64));
  std::vector<const std::uint64_t*> where;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    t.push(i);
    where.push_back(&t.back());
  }
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(*where[i], i) << "element " << i << " moved";
}

TEST(TapeApi, ShortTapeAllocatesNothing) {
  constexpr std::size_t n = adjoint::tape<double>::inline_capacity;
  static_assert(n >= 16, "the measured inline capacity is 64 doubles");
  std::size_t before = g_allocations.load();
  {
    adjoint::tape<double> t;
    for (std::size_t i = 0; i < n; ++i) t.push(double(i));
    for (std::size_t i = n; i-- > 0;) ASSERT_EQ(t.pop(), double(i));
  }
  EXPECT_EQ(g_allocations.load() - before, 0u);

  adjoint::tape<double> t;
  for (std::size_t i = 0; i <= n; ++i) t.push(double(i));
  EXPECT_EQ(t.stats().slabs_allocated, 1u) << "element n+1 needs the first slab";
}

TEST(TapeApi, ClearAndRegrowReuseSlabs) {
  adjoint::tape<float, 0> t(small_slabs(16 * sizeof(float)));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 160; ++i) t.push(float(i));
    EXPECT_EQ(t.size(), 160u);
    if (round == 1) {
      for (int i = 0; i < 160; ++i) t.pop();
    } else {
      t.clear();
    }
    EXPECT_TRUE(t.empty());
  }
  EXPECT_EQ(t.stats().slabs_allocated, 10u);
}

TEST(TapeApi, PushNPopNRoundTripAcrossSlabs) {
  adjoint::tape<int, 3> t(small_slabs(5 * sizeof(int)));
  std::vector<int> a(23), b(9), out_a(23), out_b(9);
  std::iota(a.begin(), a.end(), 100);
  std::iota(b.begin(), b.end(), 500);
  t.push(7);
  t.push_n(a.data(), a.size());
  t.push_n(b.data(), b.size());
  t.push_n(b.data(), 0);
  t.pop_n(out_b.data(), out_b.size());
  t.pop_n(out_a.data(), out_a.size());
  EXPECT_EQ(out_a, a);
  EXPECT_EQ(out_b, b);
  EXPECT_EQ(t.pop(), 7);
}

TEST(TapeApi, StoresTriviallyCopyableStructs) {
  struct record {
    std::array<double, 3> x;
    std::int32_t tag;
  };
  adjoint::tape<record> t(small_slabs(100));  // 100 is not a multiple of the record size
  for (int i = 0; i < 50; ++i) t.push(record{{i * 1.0, i * 2.0, i * 3.0}, i});
  for (int i = 49; i >= 0; --i) {
    record r = t.pop();
    ASSERT_EQ(r.tag, i);
    ASSERT_EQ(r.x[2], i * 3.0);
  }
}

TEST(TapeApi, MisuseIsReportedNotUndefined) {
  adjoint::tape<int, 2> t(small_slabs(2 * sizeof(int)));
  EXPECT_THROW(t.pop(), std::out_of_range);
  EXPECT_THROW(t.back(), std::out_of_range);
  for (int i = 0; i < 5; ++i) t.push(i);
  int out[6];
  EXPECT_THROW(t.pop_n(out, 6), std::out_of_range);
  EXPECT_EQ(t.size(), 5u) << "a refused pop_n pops nothing";
  for (int i = 0; i < 5; ++i) t.pop();
  EXPECT_THROW(t.pop(), std::out_of_range);
  t.push(9);
  EXPECT_EQ(t.pop(), 9);
}

TEST(TapeApi, InvalidOptionsAreRejected) {
  EXPECT_THROW((adjoint::tape<double>(small_slabs(4))), std::invalid_argument);
  adjoint::tape_options o = small_slabs(1024);
  o.memory_budget_bytes = 2048;
  EXPECT_THROW((adjoint::tape<double>(o)), std::invalid_argument);
  o.memory_budget_bytes = 3072;
  EXPECT_NO_THROW((adjoint::tape<double>(o)));
}

}  // namespace
