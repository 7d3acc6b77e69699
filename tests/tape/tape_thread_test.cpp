// Thread safety, run under ThreadSanitizer in CI: a tape per thread (no locking), one
// shared_tape used by every thread, and the spilling tape's background I/O thread.
#include "adjoint/tape.hpp"
#include "adjoint/tape/shared_tape.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

constexpr int threads = 4;

adjoint::tape_options spilling(std::size_t slab_bytes, std::size_t slabs) {
  adjoint::tape_options o;
  o.slab_bytes = slab_bytes;
  o.memory_budget_bytes = slab_bytes * slabs;
  return o;
}

// Pushes n values derived from `salt`, then pops and checks them all; returns the error count.
template <class Tape>
int push_then_check(Tape& t, std::uint64_t salt, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) t.push(salt * 1000003 + i);
  int errors = 0;
  for (std::uint64_t i = n; i-- > 0;) errors += t.pop() != salt * 1000003 + i;
  return errors;
}

TEST(TapeThreads, ThreadLocalTapesNeedNoLocking) {
  std::array<int, threads> errors{};
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([id, &errors] {
      thread_local adjoint::tape<std::uint64_t> t;
      for (int round = 0; round < 20; ++round) errors[id] += push_then_check(t, id, 5000);
    });
  }
  for (auto& th : pool) th.join();
  for (int e : errors) EXPECT_EQ(e, 0);
}

TEST(TapeThreads, SpillingTapesInParallelThreads) {
  std::array<int, threads> errors{};
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([id, &errors] {
      adjoint::tape<std::uint64_t, 0> t(spilling(512, 4));
      errors[id] = push_then_check(t, id, 40000);
      if (t.stats().slabs_read == 0) ++errors[id];  // it must really have gone to disk
    });
  }
  for (auto& th : pool) th.join();
  for (int e : errors) EXPECT_EQ(e, 0);
}

TEST(TapeThreads, BackgroundIoThreadWithReversals) {
  // Zig-zags across slab boundaries so writes, prefetch reads and demand reads overlap.
  adjoint::tape<std::uint64_t, 0> t(spilling(256, 3));
  std::vector<std::uint64_t> model;
  std::mt19937 rng(7);
  for (int step = 0; step < 60000; ++step) {
    if (rng() % 100 < (step < 30000 ? 55u : 45u) || model.empty()) {
      t.push(step);
      model.push_back(step);
    } else {
      ASSERT_EQ(t.pop(), model.back());
      model.pop_back();
    }
  }
  while (!model.empty()) {
    ASSERT_EQ(t.pop(), model.back());
    model.pop_back();
  }
  EXPECT_GT(t.stats().slabs_read, 0u);
}

TEST(TapeThreads, SharedTapeKeepsRecordsWhole) {
  // Each thread pushes records [thread, seq, checksum] with push_n and pops whole records with
  // pop_n while the others do the same; every record must come back intact exactly once.
  for (std::size_t budget_slabs : {std::size_t{0}, std::size_t{6}}) {
    adjoint::tape_options o;
    o.slab_bytes = 240;
    o.memory_budget_bytes = budget_slabs * o.slab_bytes;
    adjoint::shared_tape<std::uint64_t> t(o);
    constexpr std::uint64_t per_thread = 3000;
    std::vector<std::vector<std::uint64_t>> seen(threads);
    std::vector<std::thread> pool;
    for (int id = 0; id < threads; ++id) {
      pool.emplace_back([&, id] {
        std::mt19937 rng(id);
        std::uint64_t pushed = 0;
        while (pushed < per_thread) {
          std::uint64_t r[3] = {std::uint64_t(id), pushed, (std::uint64_t(id) << 32) ^ pushed};
          t.push_n(r, 3);
          ++pushed;
          if (rng() % 3 == 0) {
            std::uint64_t out[3];
            t.pop_n(out, 3);  // never fails: this thread's own record is still below
            seen[id].push_back(out[0]);
            seen[id].push_back(out[1]);
            seen[id].push_back(out[2]);
          }
        }
      });
    }
    for (auto& th : pool) th.join();
    std::vector<std::uint64_t> all;
    for (auto& s : seen) all.insert(all.end(), s.begin(), s.end());
    while (!t.empty()) {
      std::uint64_t out[3];
      t.pop_n(out, 3);
      all.insert(all.end(), out, out + 3);
    }
    ASSERT_EQ(all.size(), threads * per_thread * 3);
    std::vector<std::vector<bool>> got(threads, std::vector<bool>(per_thread, false));
    for (std::size_t i = 0; i < all.size(); i += 3) {
      std::uint64_t id = all[i], seq = all[i + 1];
      ASSERT_LT(id, std::uint64_t(threads));
      ASSERT_LT(seq, per_thread);
      ASSERT_EQ(all[i + 2], (id << 32) ^ seq) << "a record was torn";
      ASSERT_FALSE(got[id][seq]) << "a record came back twice";
      got[id][seq] = true;
    }
  }
}

TEST(TapeThreads, SharedTapeTryPopRacesSafely) {
  adjoint::shared_tape<int> t;
  std::atomic<long> popped_sum{0};
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([&, id] {
      for (int i = 1; i <= 2000; ++i) {
        if (id % 2 == 0) {
          t.push(i);
        } else if (auto v = t.try_pop()) {
          popped_sum += *v;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  while (auto v = t.try_pop()) popped_sum += *v;
  EXPECT_EQ(popped_sum.load(), 2L * 2000 * 2001 / 2);
  EXPECT_THROW(t.pop(), std::out_of_range);
}

}  // namespace
