// Disk failures: an unusable spill folder, a full disk (a failing write hook, and the kernel's
// own EFBIG under RLIMIT_FSIZE), failing reads. Each must give a clear tape_error, and the
// tape must keep every value it accepted: nothing silently lost or corrupted.
#include "adjoint/tape.hpp"
#include "spill_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

namespace {

using adjoint::spill_op;

// Pushes 0, 1, 2, ... until a push throws or `limit` pushes succeeded; returns how many did,
// and the error message (empty if none).
template <class Tape>
std::pair<std::uint64_t, std::string> push_until_error(Tape& t, std::uint64_t limit) {
  for (std::uint64_t i = 0; i < limit; ++i) {
    try {
      t.push(i);
    } catch (const adjoint::tape_error& e) {
      return {i, e.what()};
    }
  }
  return {limit, ""};
}

template <class Tape>
void expect_holds_exactly(Tape& t, std::uint64_t n) {
  ASSERT_EQ(t.size(), n);
  for (std::uint64_t i = n; i-- > 0;) ASSERT_EQ(t.pop(), i) << "element " << i << " was lost";
}

TEST(TapeFailure, UnusableSpillFolderIsReportedAndKeepsTheData) {
  tape_test::temp_folder dir;
  std::filesystem::path a_file = dir.path() / "file";
  std::ofstream(a_file) << "x";
  struct bad_folder {
    std::filesystem::path path;
    std::string reason;
  };
  for (const bad_folder& f : {bad_folder{dir.path() / "missing", "No such file or directory"},
                              bad_folder{a_file, "Not a directory"}}) {
    adjoint::tape<std::uint64_t, 0> t(tape_test::budget(f.path, 256, 4));
    auto [pushed, message] = push_until_error(t, 100000);
    ASSERT_LT(pushed, 100000u) << "spilling into " << f.path << " did not fail";
    EXPECT_NE(message.find(f.path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(f.reason), std::string::npos) << message;
    // The error repeats on the next push instead of dropping anything.
    EXPECT_THROW(t.push(pushed), adjoint::tape_error);
    expect_holds_exactly(t, pushed);
  }
}

TEST(TapeFailure, FullDiskOnWriteIsReportedAndKeepsTheData) {
  tape_test::temp_folder dir;
  adjoint::tape_options o = tape_test::budget(dir.path(), 256, 4);
  std::atomic<int> writes_allowed{5};
  o.spill_fault = [&](spill_op op, std::uint64_t, std::size_t) {
    return op == spill_op::write && writes_allowed-- <= 0 ? ENOSPC : 0;
  };
  adjoint::tape<std::uint64_t, 0> t(o);
  auto [pushed, message] = push_until_error(t, 100000);
  ASSERT_LT(pushed, 100000u);
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  EXPECT_NE(message.find("writing spill file '" + dir.path().string()), std::string::npos)
      << message;
  EXPECT_EQ(t.stats().slabs_written, 5u);
  expect_holds_exactly(t, pushed);
}

TEST(TapeFailure, WriteFailingDuringThePopsDoesNotStopThem) {
  // Slow failing writes: when a push reports the first one, the next is still in flight; it
  // fails before the reverse pass starts, which finds it among the finished jobs. Its slab
  // stayed in memory, so the pops must go on. (The kernel's EFBIG did this in CI.)
  tape_test::temp_folder dir;
  adjoint::tape_options o = tape_test::budget(dir.path(), 256, 4);
  std::atomic<int> writes_allowed{5};
  o.spill_fault = [&](spill_op op, std::uint64_t, std::size_t) {
    if (op != spill_op::write || writes_allowed-- > 0) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return ENOSPC;
  };
  adjoint::tape<std::uint64_t, 0> t(o);
  auto [pushed, message] = push_until_error(t, 100000);
  ASSERT_LT(pushed, 100000u);
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  expect_holds_exactly(t, pushed);
}

TEST(TapeFailure, FileSizeLimitOfTheKernelIsReported) {
  // The kernel's own refusal, as on a full disk: writes past RLIMIT_FSIZE fail with EFBIG
  // (SIGXFSZ ignored, as a program that handles errors would).
  tape_test::temp_folder dir;
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = 64 << 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tight), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  std::uint64_t pushed;
  std::string message;
  {
    adjoint::tape<std::uint64_t, 0> t(tape_test::budget(dir.path(), 4096, 4));
    std::tie(pushed, message) = push_until_error(t, 1'000'000);
    expect_holds_exactly(t, pushed);
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_LT(pushed, 1'000'000u) << "64 KiB file size limit, 8 MB pushed, and no error";
  EXPECT_GE(pushed * sizeof(std::uint64_t), std::size_t{64 << 10});
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
}

TEST(TapeFailure, FailingReadIsReportedAndRecoverable) {
  tape_test::temp_folder dir;
  adjoint::tape_options o = tape_test::budget(dir.path(), 256, 4);
  std::atomic<bool> disk_broken{false};
  o.spill_fault = [&](spill_op op, std::uint64_t, std::size_t) {
    return op == spill_op::read && disk_broken ? EIO : 0;
  };
  adjoint::tape<std::uint64_t, 0> t(o);
  constexpr std::uint64_t n = 5000;
  for (std::uint64_t i = 0; i < n; ++i) t.push(i);
  disk_broken = true;
  std::uint64_t left = n;
  std::string message;
  try {
    for (; left > 0; --left) ASSERT_EQ(t.pop(), left - 1);
  } catch (const adjoint::tape_error& e) {
    message = e.what();
  }
  ASSERT_GT(left, 0u) << "every pop succeeded although every read failed";
  EXPECT_NE(message.find("Input/output error"), std::string::npos) << message;
  EXPECT_EQ(t.size(), left) << "the failed pop removed an element";
  EXPECT_THROW(t.pop(), adjoint::tape_error) << "a second attempt must fail, not return garbage";
  disk_broken = false;
  expect_holds_exactly(t, left);
}

TEST(TapeFailure, ReadThatFailsOnceIsRetried) {
  tape_test::temp_folder dir;
  adjoint::tape_options o = tape_test::budget(dir.path(), 256, 4);
  std::mutex m;
  std::set<std::uint64_t> failed_once;
  o.spill_fault = [&](spill_op op, std::uint64_t offset, std::size_t) {
    std::lock_guard lock(m);
    return op == spill_op::read && failed_once.insert(offset).second ? EIO : 0;
  };
  adjoint::tape<std::uint64_t, 0> t(o);
  for (std::uint64_t i = 0; i < 5000; ++i) t.push(i);
  expect_holds_exactly(t, 5000);
  EXPECT_GT(failed_once.size(), 10u);
}

}  // namespace
