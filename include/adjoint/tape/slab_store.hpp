#pragma once
// The heap part of a tape: a chain of fixed-size slabs, a pool of free slab buffers, and, under
// a memory budget, the policy that writes the oldest slabs to a spill file and reads them back
// ahead of the reverse pass. It works in bytes; tape<T> on top of it is the typed hot path.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/tape/fail.hpp"
#include "adjoint/tape/spill_file.hpp"

namespace adjoint {

struct tape_options {
  // Heap bytes of slabs the tape may hold in memory; beyond it the oldest slabs are spilled to
  // disk. 0 = unlimited (never touches disk). Otherwise it must be at least 3 slabs: the one
  // being filled or emptied, one in flight to or from disk, one spare.
  std::size_t memory_budget_bytes = 0;
  // Folder of the spill file; empty = std::filesystem::temp_directory_path() ($TMPDIR).
  std::filesystem::path spill_dir;
  // Bytes per slab (rounded down to whole elements). Also the unit of disk I/O.
  std::size_t slab_bytes = std::size_t{1} << 20;
  // Test hook for the disk layer; see spill_fault_hook.
  spill_fault_hook spill_fault;
};

struct tape_stats {
  std::size_t slabs_allocated = 0;     // heap slab buffers created (they are reused, not freed)
  std::size_t peak_resident_bytes = 0; // most heap bytes held in slabs at once
  std::size_t slabs_written = 0;       // spill writes completed
  std::size_t slabs_read = 0;          // spill reads completed
  std::size_t prefetch_hits = 0;       // reverse pass found the slab it needed already read
  std::size_t read_stalls = 0;         // reverse pass had to wait for a read
};

namespace detail {

class slab_store {
 public:
  slab_store(tape_options options, std::size_t element_bytes)
      : options_(std::move(options)),
        slab_bytes_(options_.slab_bytes / element_bytes * element_bytes) {
    if (slab_bytes_ == 0) {
      ADJOINT_THROW(std::invalid_argument("adjoint::tape: slab_bytes (" +
                                  std::to_string(options_.slab_bytes) +
                                  ") is smaller than one element (" +
                                  std::to_string(element_bytes) + " bytes)"));
    }
    if (options_.memory_budget_bytes != 0) {
      if (options_.memory_budget_bytes < 3 * slab_bytes_) {
        ADJOINT_THROW(std::invalid_argument(
            "adjoint::tape: memory_budget_bytes (" + std::to_string(options_.memory_budget_bytes) +
            ") must be 0 or at least 3 slabs (" + std::to_string(3 * slab_bytes_) + " bytes)"));
      }
      max_buffers_ = options_.memory_budget_bytes / slab_bytes_;
      write_ahead_ = std::max<std::size_t>(1, max_buffers_ / 8);
    }
  }

  slab_store(const slab_store&) = delete;
  slab_store& operator=(const slab_store&) = delete;

  ~slab_store() {
    file_.reset();  // joins the I/O thread before the buffers it may use are freed
    for (auto& s : slabs_) free_buffer(s.buffer);
    for (std::byte* b : pool_) free_buffer(b);
  }

  std::size_t slab_bytes() const noexcept { return slab_bytes_; }
  std::size_t depth() const noexcept { return depth_; }
  const tape_stats& stats() const noexcept { return stats_; }

  // Adds a slab after the current one and returns its buffer. On an exception nothing changed.
  std::byte* advance() {
    if (slabs_.size() == depth_) slabs_.emplace_back();
    write_behind();
    std::byte* buf = acquire_buffer();
    slabs_[depth_] = {buf, state::resident, true, false};
    if (spilling()) resident_.insert(depth_);
    ++depth_;
    return buf;
  }

  // Drops the current (emptied) slab; returns the buffer of the one before it, resident, or
  // nullptr when the chain is now empty. On an exception nothing changed.
  std::byte* retreat() {
    std::size_t dropped = depth_ - 1;
    if (dropped > 0) make_resident(dropped - 1);
    release(dropped);
    --depth_;
    if (depth_ == 0) return nullptr;
    slab& now = slabs_[depth_ - 1];
    now.dirty = true;  // pushes will overwrite it: its disk copy goes stale
    prefetch();
    return now.buffer;
  }

  // Empties the chain, keeping the buffers for reuse.
  void clear() {
    while (inflight_head_ < inflight_.size()) wait_front(no_write_errors);
    for (std::size_t i = 0; i < depth_; ++i) release(i);
    depth_ = 0;
  }

 private:
  enum class state { unused, resident, writing, spilled, reading };
  struct slab {
    std::byte* buffer = nullptr;
    state st = state::unused;
    bool dirty = false;   // differs from its disk copy (or has none)
    bool wanted = false;  // the reverse pass waits on its write: keep it in memory afterwards
  };
  struct io {
    std::uint64_t ticket;
    std::size_t slab;
  };

  bool spilling() const noexcept { return options_.memory_budget_bytes != 0; }

  // Which failed writes an I/O wait reports: those with a ticket from this one on. The forward
  // pass reports all (0); the reverse pass only the writes it issued itself, since any other
  // failed write left its slab in memory with the data intact and the pops can go on.
  static constexpr std::uint64_t all_write_errors = 0;
  static constexpr std::uint64_t no_write_errors = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t next_ticket() const noexcept { return file_ ? file_->submitted() + 1 : 0; }
  std::uint64_t offset_of(std::size_t i) const noexcept { return std::uint64_t(i) * slab_bytes_; }

  std::byte* new_buffer() {
    std::byte* b = try_new_buffer();
    if (!b) ADJOINT_THROW(std::bad_alloc());
    return b;
  }
  std::byte* try_new_buffer() noexcept {
    auto* b = static_cast<std::byte*>(
        ::operator new(slab_bytes_, std::align_val_t{4096}, std::nothrow));
    if (!b) return nullptr;
    ++allocated_;
    ++stats_.slabs_allocated;
    stats_.peak_resident_bytes = std::max(stats_.peak_resident_bytes, allocated_ * slab_bytes_);
    return b;
  }
  static void free_buffer(std::byte* b) noexcept {
    if (b) ::operator delete(b, std::align_val_t{4096});
  }

  void release(std::size_t i) {
    slab& s = slabs_[i];
    if (s.buffer) pool_.push_back(s.buffer);
    if (s.st == state::resident && spilling()) resident_.erase(i);
    s = {};
  }

  // A free buffer: from the pool, newly allocated while under budget, or taken from the oldest
  // resident slab (the one the reverse pass needs last) once its disk copy is written.
  std::byte* acquire_buffer(std::uint64_t report_writes_from = all_write_errors) {
    for (;;) {
      reap(report_writes_from);
      if (!pool_.empty()) {
        std::byte* b = pool_.back();
        pool_.pop_back();
        return b;
      }
      if (allocated_ < max_buffers_) return new_buffer();
      if (inflight_head_ < inflight_.size()) {
        wait_front(report_writes_from);
      } else {
        evict_oldest();
      }
    }
  }

  // Starts writing old slabs early so that the forward pass rarely waits for a free buffer
  // (the one about to be taken is not counted, hence the `<=`).
  void write_behind() {
    if (!spilling() || allocated_ < max_buffers_) return;
    while (pool_.size() + writes_in_flight_ <= write_ahead_ && evictable()) evict_oldest();
  }

  bool evictable() const noexcept {
    return !resident_.empty() && *resident_.begin() + 1 < depth_;
  }

  void evict_oldest() {
    if (!evictable()) ADJOINT_THROW(std::logic_error("adjoint::tape: no slab to spill (budget too small)"));
    std::size_t i = *resident_.begin();
    slab& s = slabs_[i];
    if (!s.dirty) {  // its disk copy is current: just drop the buffer
      resident_.erase(resident_.begin());
      pool_.push_back(s.buffer);
      s.buffer = nullptr;
      s.st = state::spilled;
      return;
    }
    if (!file_) file_ = std::make_unique<spill_file>(options_.spill_dir, options_.spill_fault);
    resident_.erase(resident_.begin());
    s.st = state::writing;
    ++writes_in_flight_;
    inflight_.push_back({file_->submit(spill_op::write, s.buffer, slab_bytes_, offset_of(i)), i});
  }

  // Issues reads of the spilled slabs just below the current one, with the free buffers only.
  // Best effort and non-throwing: a slab it misses is read on demand by make_resident.
  void prefetch() noexcept {
    if (!file_) return;
    for (std::size_t i = depth_ - 1; i-- > 0;) {
      slab& s = slabs_[i];
      if (s.st != state::spilled) continue;
      std::byte* buf = nullptr;
      if (!pool_.empty()) {
        buf = pool_.back();
        pool_.pop_back();
      } else if (allocated_ < max_buffers_) {
        buf = try_new_buffer();
      }
      if (!buf) return;
      start_read(i, buf);
    }
  }

  void start_read(std::size_t i, std::byte* buf) {
    slab& s = slabs_[i];
    s.buffer = buf;
    s.st = state::reading;
    inflight_.push_back({file_->submit(spill_op::read, buf, slab_bytes_, offset_of(i)), i});
  }

  void make_resident(std::size_t i) {
    const std::uint64_t own = next_ticket();
    reap(own);
    slab& s = slabs_[i];
    if (s.st == state::resident) {
      if (!s.dirty) ++stats_.prefetch_hits;
      return;
    }
    if (s.st == state::spilled) {
      start_read(i, acquire_buffer(own));
    } else {
      s.wanted = true;
    }
    if (s.st == state::reading) ++stats_.read_stalls;
    while (s.st == state::reading || s.st == state::writing) wait_front(own);
    if (s.st == state::spilled) {  // its read failed: try once more, then report
      start_read(i, acquire_buffer(own));
      while (s.st == state::reading) wait_front(no_write_errors);
      if (s.st != state::resident) {
        ADJOINT_THROW(tape_error("adjoint::tape: reading spill file '" + file_->path().string() +
                         "' failed: " + std::strerror(last_read_error_)));
      }
    }
  }

  void wait_front(std::uint64_t report_writes_from = all_write_errors) {
    file_->wait(inflight_[inflight_head_].ticket);
    reap(report_writes_from);
  }

  // Applies every finished I/O job to its slab. A failed write leaves the slab in memory (its
  // data is intact) and is reported (see report_writes_from); a failed read leaves it on disk
  // for make_resident to retry.
  void reap(std::uint64_t report_writes_from = all_write_errors) {
    if (inflight_head_ == inflight_.size()) return;
    std::uint64_t done = file_->completed();
    int write_error = 0;
    while (inflight_head_ < inflight_.size() && inflight_[inflight_head_].ticket <= done) {
      io job = inflight_[inflight_head_++];
      int err = file_->take_error(job.ticket);
      slab& s = slabs_[job.slab];
      if (s.st == state::writing) {
        --writes_in_flight_;
        if (err == 0) ++stats_.slabs_written;
        if (err != 0 || s.wanted) {
          s.st = state::resident;
          s.dirty = err != 0;
          resident_.insert(job.slab);
          if (err != 0 && !s.wanted && job.ticket >= report_writes_from) write_error = err;
        } else {
          pool_.push_back(s.buffer);
          s.buffer = nullptr;
          s.st = state::spilled;
          s.dirty = false;
        }
        s.wanted = false;
      } else if (err == 0) {
        ++stats_.slabs_read;
        s.st = state::resident;
        s.dirty = false;
        s.wanted = false;
        resident_.insert(job.slab);
      } else {
        last_read_error_ = err;
        pool_.push_back(s.buffer);
        s.buffer = nullptr;
        s.st = state::spilled;
      }
    }
    if (inflight_head_ * 2 >= inflight_.size()) {  // drop the applied jobs, amortised O(1)
      inflight_.erase(inflight_.begin(), inflight_.begin() + std::ptrdiff_t(inflight_head_));
      inflight_head_ = 0;
    }
    if (write_error != 0) {
      ADJOINT_THROW(tape_error("adjoint::tape: writing spill file '" + file_->path().string() +
                       "' failed: " + std::strerror(write_error) +
                       " (the tape keeps its data in memory)"));
    }
  }

  tape_options options_;
  std::size_t slab_bytes_;
  std::size_t max_buffers_ = std::numeric_limits<std::size_t>::max();
  std::size_t write_ahead_ = 0;
  std::vector<slab> slabs_;      // [0, depth_) hold the tape's data; beyond are unused
  std::size_t depth_ = 0;
  std::vector<std::byte*> pool_;  // free buffers, reused before allocating
  std::size_t allocated_ = 0;
  // Spilling only: the slabs in memory and not in flight, oldest first.
  std::set<std::size_t> resident_;
  // I/O jobs not yet applied, from inflight_head_ on, in ticket (= completion) order. A vector
  // rather than a deque: a deque allocates on construction and short tapes allocate nothing.
  std::vector<io> inflight_;
  std::size_t inflight_head_ = 0;
  std::size_t writes_in_flight_ = 0;
  int last_read_error_ = 0;
  tape_stats stats_;
  std::unique_ptr<spill_file> file_;
};

}  // namespace detail
}  // namespace adjoint
