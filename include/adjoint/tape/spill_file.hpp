#pragma once
// The file a tape spills its oldest slabs to, and the one background thread that writes and
// reads it. Jobs run in submission order, so a ticket is done once `completed()` reaches it and
// a read always sees the writes submitted before it.

#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "adjoint/tape/fail.hpp"

namespace adjoint {

// Every failure of the tape's disk layer (cannot create the file, a write or read failed).
class tape_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class spill_op { write, read };

// Called on the I/O thread before each write or read of `bytes` at `offset`; a nonzero return
// is taken as the errno of that call. Lets tests simulate a full or failing disk.
using spill_fault_hook = std::function<int(spill_op, std::uint64_t offset, std::size_t bytes)>;

namespace detail {

class spill_file {
 public:
  // Creates the file in `dir` (the system temp folder when empty) and unlinks it at once, so
  // it disappears when the tape dies however it dies (exception, abort, kill).
  spill_file(const std::filesystem::path& dir, spill_fault_hook fault)
      : fault_(std::move(fault)) {
    std::error_code ec;
    std::filesystem::path folder = dir.empty() ? std::filesystem::temp_directory_path(ec) : dir;
    if (ec) ADJOINT_THROW(tape_error("adjoint::tape: no temp folder for the spill file: " + ec.message()));
    std::string name = (folder / "adjoint-tape-XXXXXX").string();
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) {
      ADJOINT_THROW(tape_error("adjoint::tape: cannot create a spill file in '" + folder.string() +
                       "': " + std::strerror(errno)));
    }
    ::unlink(name.c_str());
    path_ = name;
    worker_ = std::thread([this] { run(); });
  }

  spill_file(const spill_file&) = delete;
  spill_file& operator=(const spill_file&) = delete;

  ~spill_file() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_ready_.notify_one();
    worker_.join();
    ::close(fd_);
  }

  const std::filesystem::path& path() const noexcept { return path_; }

  // Queues a write of buf[0..bytes) at offset (or a read into it); returns its ticket.
  // The buffer must stay untouched by the caller until the ticket is done.
  std::uint64_t submit(spill_op op, std::byte* buf, std::size_t bytes, std::uint64_t offset) {
    std::uint64_t ticket;
    {
      std::lock_guard lock(mutex_);
      ticket = ++submitted_;
      jobs_.push_back({op, buf, bytes, offset, ticket});
    }
    work_ready_.notify_one();
    return ticket;
  }

  // The last ticket handed out (only submit changes it, on the owner's thread).
  std::uint64_t submitted() const noexcept { return submitted_; }

  std::uint64_t completed() {
    std::lock_guard lock(mutex_);
    return completed_;
  }

  void wait(std::uint64_t ticket) {
    std::unique_lock lock(mutex_);
    job_done_.wait(lock, [&] { return completed_ >= ticket; });
  }

  // The errno of a finished job (0 = it succeeded); each ticket's error is handed out once.
  int take_error(std::uint64_t ticket) {
    std::lock_guard lock(mutex_);
    auto it = errors_.find(ticket);
    if (it == errors_.end()) return 0;
    int err = it->second;
    errors_.erase(it);
    return err;
  }

 private:
  struct job {
    spill_op op;
    std::byte* buf;
    std::size_t bytes;
    std::uint64_t offset;
    std::uint64_t ticket;
  };

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stop_ is only honoured once every queued job has run
      job j = jobs_.front();
      jobs_.pop_front();
      lock.unlock();
      int err = transfer(j);
      lock.lock();
      if (err != 0) errors_[j.ticket] = err;
      completed_ = j.ticket;
      job_done_.notify_all();
    }
  }

  // Moves all the job's bytes (the kernel may do fewer per call); returns 0 or an errno.
  int transfer(const job& j) {
    if (fault_) {
      if (int err = fault_(j.op, j.offset, j.bytes)) return err;
    }
    std::size_t done = 0;
    while (done < j.bytes) {
      ssize_t n = j.op == spill_op::write
                      ? ::pwrite(fd_, j.buf + done, j.bytes - done, off_t(j.offset + done))
                      : ::pread(fd_, j.buf + done, j.bytes - done, off_t(j.offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      if (n == 0) return j.op == spill_op::write ? ENOSPC : EIO;  // no progress: full or truncated
      done += std::size_t(n);
    }
    return 0;
  }

  spill_fault_hook fault_;
  int fd_ = -1;
  std::filesystem::path path_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable job_done_;
  std::deque<job> jobs_;
  std::unordered_map<std::uint64_t, int> errors_;
  std::uint64_t submitted_ = 0;
  std::uint64_t completed_ = 0;
  bool stop_ = false;
  std::thread worker_;  // last: starts after every member it uses exists
};

}  // namespace detail
}  // namespace adjoint
