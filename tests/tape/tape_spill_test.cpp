// Spilling to disk: a tape far larger than its budget comes back exactly, mostly from
// prefetched slabs; the spill file lives where asked, is invisible, and is gone (its
// descriptor closed) when the tape dies, also when it dies by an exception.
#include "adjoint/tape.hpp"
#include "spill_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

namespace {

TEST(TapeSpill, LargeTapeComesBackExactlyWithinBudget) {
  tape_test::temp_folder dir;
  adjoint::tape_options o = tape_test::budget(dir.path(), 64 << 10, 16);  // 1 MiB budget
  adjoint::tape<double> t(o);
  constexpr std::size_t n = 2'000'000;  // 16 MB
  for (std::size_t i = 0; i < n; ++i) t.push(double(i) * 0.25);
  for (std::size_t i = n; i-- > 0;) ASSERT_EQ(t.pop(), double(i) * 0.25) << "element " << i;
  const adjoint::tape_stats& s = t.stats();
  EXPECT_LE(s.peak_resident_bytes, o.memory_budget_bytes);
  EXPECT_GE(s.slabs_written, (n * sizeof(double) - o.memory_budget_bytes) / o.slab_bytes);
  // Every spilled slab is read back once, except those the reverse pass reached while their
  // write was still in flight (they stay in memory).
  EXPECT_LE(s.slabs_read, s.slabs_written);
  EXPECT_GE(s.slabs_read + o.memory_budget_bytes / o.slab_bytes, s.slabs_written);
  EXPECT_GT(s.prefetch_hits, 0u) << "the prefetcher never got ahead of the pops";
  std::printf("spilled %zu slabs; reverse pass: %zu prefetch hits, %zu waits on a read\n",
              s.slabs_written, s.prefetch_hits, s.read_stalls);
}

TEST(TapeSpill, SpillFileIsUnlinkedAndClosedWhenTheTapeDies) {
  tape_test::temp_folder dir;
  {
    adjoint::tape<int> t(tape_test::budget(dir.path(), 1024, 3));
    for (int i = 0; i < 10000; ++i) t.push(i);
    ASSERT_GT(t.stats().slabs_written, 0u);
    EXPECT_EQ(tape_test::open_files_in(dir.path()).size(), 1u) << "the tape holds its spill file";
    EXPECT_TRUE(tape_test::folder_is_empty(dir.path())) << "the spill file has no name";
  }
  EXPECT_TRUE(tape_test::open_files_in(dir.path()).empty()) << "the dead tape left its file open";
}

TEST(TapeSpill, SpillFileIsClosedWhenAnExceptionKillsTheTape) {
  tape_test::temp_folder dir;
  try {
    adjoint::tape<int> t(tape_test::budget(dir.path(), 1024, 3));
    for (int i = 0; i < 10000; ++i) t.push(i);
    ASSERT_EQ(tape_test::open_files_in(dir.path()).size(), 1u);
    throw std::runtime_error("forward pass failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(tape_test::open_files_in(dir.path()).empty());
  EXPECT_TRUE(tape_test::folder_is_empty(dir.path()));
}

TEST(TapeSpill, DefaultSpillFolderIsTmpdir) {
  tape_test::temp_folder dir;
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  {
    adjoint::tape<int> t(tape_test::budget({}, 1024, 3));
    for (int i = 0; i < 10000; ++i) t.push(i);
    EXPECT_EQ(tape_test::open_files_in(dir.path()).size(), 1u);
  }
  if (old) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
}

TEST(TapeSpill, NoBudgetNeverTouchesDisk) {
  tape_test::temp_folder dir;
  adjoint::tape_options o;
  o.spill_dir = dir.path();
  o.slab_bytes = 1024;
  adjoint::tape<int> t(o);
  for (int i = 0; i < 100000; ++i) t.push(i);
  EXPECT_TRUE(tape_test::open_files_in(dir.path()).empty());
  EXPECT_EQ(t.stats().slabs_written, 0u);
}

}  // namespace
