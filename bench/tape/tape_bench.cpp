// Benchmarks of adjoint::tape (Google Benchmark). Every case runs several repetitions; the
// summary at the end compares medians of each implementation against adjoint::tape.
//   tape_bench [--spill_dir=DIR] [google benchmark flags]
#include "adjoint/tape.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <string>
#include <vector>

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

// ---- Peak heap bytes: every allocation of this program is counted -------------------------

static std::atomic<std::size_t> g_live{0}, g_peak{0};

static void note_alloc(void* p) {
  if (!p) return;
  std::size_t live = g_live += malloc_usable_size(p);
  std::size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
}
static void note_free(void* p) {
  if (p) g_live -= malloc_usable_size(p);
}
static void reset_peak() { g_peak = g_live.load(); }

[[gnu::noinline]] void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  void* p = std::aligned_alloc(std::size_t(a), (n + std::size_t(a) - 1) / std::size_t(a) * std::size_t(a));
  note_alloc(p);
  return p;
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t a) {
  void* p = operator new(n, a, std::nothrow);
  if (!p) throw std::bad_alloc();
  return p;
}
[[gnu::noinline]] void operator delete(void* p) noexcept { note_free(p), std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { note_free(p), std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { note_free(p), std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  note_free(p), std::free(p);
}

namespace {

// ---- The tapes compared -------------------------------------------------------------------

// The classic monolithic tape: one std::vector (grows by doubling, copying everything).
template <class T>
class vector_tape {
 public:
  void push(const T& v) { data_.push_back(v); }
  T pop() {
    T v = data_.back();
    data_.pop_back();
    return v;
  }
  void push_n(const T* p, std::size_t n) { data_.insert(data_.end(), p, p + n); }
  void pop_n(T* out, std::size_t n) {
    std::copy(data_.end() - std::ptrdiff_t(n), data_.end(), out);
    data_.resize(data_.size() - n);
  }

 private:
  std::vector<T> data_;
};

// A monolithic tape grown with realloc (which can move pages with mremap instead of copying).
template <class T>
class realloc_tape {
 public:
  realloc_tape() = default;
  realloc_tape(const realloc_tape&) = delete;
  ~realloc_tape() {
    note_free(data_);
    std::free(data_);
  }
  void push(const T& v) {
    if (size_ == capacity_) [[unlikely]]
      grow(size_ + 1);
    data_[size_++] = v;
  }
  T pop() { return data_[--size_]; }
  void push_n(const T* p, std::size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    std::memcpy(data_ + size_, p, n * sizeof(T));
    size_ += n;
  }
  void pop_n(T* out, std::size_t n) {
    size_ -= n;
    std::memcpy(out, data_ + size_, n * sizeof(T));
  }

 private:
  [[gnu::noinline]] void grow(std::size_t need) {
    std::size_t cap = std::max({need, 2 * capacity_, std::size_t{64}});
    note_free(data_);
    auto* p = static_cast<T*>(std::realloc(data_, cap * sizeof(T)));
    if (!p) throw std::bad_alloc();
    note_alloc(p);
    data_ = p;
    capacity_ = cap;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

using adjoint_tape = adjoint::tape<double>;

std::filesystem::path g_spill_dir;  // --spill_dir, default: the system temp folder

// ---- Scalar and array push-then-pop ---------------------------------------------------------

// One forward pass of n pushes, then the reverse pass of n pops, on a fresh tape.
template <class Tape>
void push_pop_fresh(benchmark::State& state, std::size_t n) {
  double sum = 0;
  reset_peak();
  for (auto _ : state) {
    Tape t;
    for (std::size_t i = 0; i < n; ++i) t.push(double(i));
    for (std::size_t i = 0; i < n; ++i) sum += t.pop();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(std::int64_t(state.iterations() * n));
  state.counters["peak_MB"] = double(g_peak - g_live) / 1e6;
}

// The same with the tape kept across passes (its memory is already there).
template <class Tape>
void push_pop_reused(benchmark::State& state, std::size_t n) {
  double sum = 0;
  Tape t;
  for (std::size_t i = 0; i < n; ++i) t.push(0.0);
  for (std::size_t i = 0; i < n; ++i) sum += t.pop();
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) t.push(double(i));
    for (std::size_t i = 0; i < n; ++i) sum += t.pop();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(std::int64_t(state.iterations() * n));
}

// Records of `record` doubles with push_n/pop_n, n doubles in all, fresh tape.
template <class Tape>
void push_pop_arrays(benchmark::State& state, std::size_t n, std::size_t record) {
  std::vector<double> in(record, 1.5), out(record);
  double sum = 0;
  for (auto _ : state) {
    Tape t;
    for (std::size_t i = 0; i < n; i += record) t.push_n(in.data(), record);
    for (std::size_t i = 0; i < n; i += record) {
      t.pop_n(out.data(), record);
      sum += out[0];
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(std::int64_t(state.iterations() * n));
}

// A short-lived tape of `length` doubles, with InlineCapacity elements inside the object.
template <std::size_t InlineCapacity>
void short_tape(benchmark::State& state, std::size_t length) {
  double sum = 0;
  for (auto _ : state) {
    adjoint::tape<double, InlineCapacity> t;
    for (std::size_t i = 0; i < length; ++i) t.push(double(i));
    for (std::size_t i = 0; i < length; ++i) sum += t.pop();
    benchmark::DoNotOptimize(sum);
  }
}

// ---- Spilling --------------------------------------------------------------------------------

// A forward pass of n pushes then the timed reverse pass, in memory or under a budget.
void reverse_pass(benchmark::State& state, std::size_t n, std::size_t budget_bytes) {
  adjoint::tape_options o;
  o.memory_budget_bytes = budget_bytes;
  o.spill_dir = g_spill_dir;
  double sum = 0, forward_s = 0;
  adjoint::tape_stats last;
  reset_peak();
  for (auto _ : state) {
    adjoint_tape t(o);
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) t.push(double(i));
    auto t1 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) sum += t.pop();
    auto t2 = std::chrono::steady_clock::now();
    forward_s += std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(std::chrono::duration<double>(t2 - t1).count());
    last = t.stats();
  }
  benchmark::DoNotOptimize(sum);
  double bytes = double(n * sizeof(double));
  state.SetBytesProcessed(std::int64_t(state.iterations() * n * sizeof(double)));
  state.counters["forward_GBps"] = bytes * double(state.iterations()) / forward_s / 1e9;
  state.counters["peak_MB"] = double(g_peak - g_live) / 1e6;
  state.counters["spilled_MB"] = double(last.slabs_written) * double(o.slab_bytes) / 1e6;
  state.counters["read_waits"] = double(last.read_stalls);
}

// The disk's sequential bandwidth seen the way the tape sees it (1 MiB pwrite then pread on
// a file in the spill folder, through the page cache), and with O_DIRECT (the device itself).
void disk_bandwidth(benchmark::State& state, std::size_t bytes, bool direct) {
  const std::size_t block = 1 << 20;
  auto* buf = static_cast<std::byte*>(std::aligned_alloc(4096, block));
  std::memset(buf, 7, block);
  std::filesystem::path folder =
      g_spill_dir.empty() ? std::filesystem::temp_directory_path() : g_spill_dir;
  std::string name = (folder / "adjoint-bench-XXXXXX").string();
  int fd = ::mkstemp(name.data());
  if (fd < 0) {
    state.SkipWithError(("cannot create a file in " + folder.string()).c_str());
    std::free(buf);
    return;
  }
  ::unlink(name.c_str());
  if (direct && ::fcntl(fd, F_SETFL, O_DIRECT) != 0) {
    state.SkipWithError("O_DIRECT not supported by this file system");
  }
  double write_s = 0, read_s = 0;
  bool ok = true;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t off = 0; off < bytes; off += block) ok &= ::pwrite(fd, buf, block, off_t(off)) == ssize_t(block);
    if (direct) ::fdatasync(fd);
    auto t1 = std::chrono::steady_clock::now();
    for (std::size_t off = bytes; off > 0; off -= block) ok &= ::pread(fd, buf, block, off_t(off - block)) == ssize_t(block);
    auto t2 = std::chrono::steady_clock::now();
    write_s += std::chrono::duration<double>(t1 - t0).count();
    read_s += std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(std::chrono::duration<double>(t2 - t0).count());
  }
  if (!ok) state.SkipWithError("a write or read failed (disk full?)");
  ::close(fd);
  std::free(buf);
  state.counters["write_GBps"] = double(bytes) * double(state.iterations()) / write_s / 1e9;
  state.counters["read_GBps"] = double(bytes) * double(state.iterations()) / read_s / 1e9;
}

// ---- Registration and the summary table --------------------------------------------------

void register_all() {
  constexpr std::size_t big = 100'000'000;  // the 10^8 doubles
  auto add = [](const std::string& name, auto fn) { return benchmark::RegisterBenchmark(name.c_str(), fn); };
  for (std::size_t n : {std::size_t{1'000'000}, big}) {
    std::string c = "scalar push+pop, fresh tape, " + std::to_string(n) + " doubles";
    add(c + "/adjoint", [n](benchmark::State& s) { push_pop_fresh<adjoint_tape>(s, n); });
    add(c + "/std::vector", [n](benchmark::State& s) { push_pop_fresh<vector_tape<double>>(s, n); });
    add(c + "/realloc", [n](benchmark::State& s) { push_pop_fresh<realloc_tape<double>>(s, n); });
  }
  {
    std::string c = "scalar push+pop, reused tape, 10000000 doubles";
    const std::size_t n = 10'000'000;
    add(c + "/adjoint", [n](benchmark::State& s) { push_pop_reused<adjoint_tape>(s, n); });
    add(c + "/std::vector", [n](benchmark::State& s) { push_pop_reused<vector_tape<double>>(s, n); });
    add(c + "/realloc", [n](benchmark::State& s) { push_pop_reused<realloc_tape<double>>(s, n); });
  }
  for (std::size_t record : {std::size_t{16}, std::size_t{4096}}) {
    std::string c = "push_n+pop_n of " + std::to_string(record) + "-double records, 10000000 doubles";
    const std::size_t n = 10'000'000;
    add(c + "/adjoint", [=](benchmark::State& s) { push_pop_arrays<adjoint_tape>(s, n, record); });
    add(c + "/std::vector", [=](benchmark::State& s) { push_pop_arrays<vector_tape<double>>(s, n, record); });
    add(c + "/realloc", [=](benchmark::State& s) { push_pop_arrays<realloc_tape<double>>(s, n, record); });
  }
  for (std::size_t len : {8, 32, 64, 128, 512}) {
    std::string c = "short tape of " + std::to_string(len) + " doubles";
    add(c + "/inline 0", [len](benchmark::State& s) { short_tape<0>(s, len); });
    add(c + "/inline 16", [len](benchmark::State& s) { short_tape<16>(s, len); });
    add(c + "/inline 64", [len](benchmark::State& s) { short_tape<64>(s, len); });
    add(c + "/inline 256", [len](benchmark::State& s) { short_tape<256>(s, len); });
  }
  {
    std::string c = "reverse pass of 100000000 doubles (800 MB)";
    add(c + "/in memory", [](benchmark::State& s) { reverse_pass(s, big, 0); })->UseManualTime();
    add(c + "/budget 64 MiB", [](benchmark::State& s) { reverse_pass(s, big, 64u << 20); })->UseManualTime();
    std::string d = "disk 800 MB write then read, 1 MiB blocks";
    add(d + "/page cache", [](benchmark::State& s) { disk_bandwidth(s, 800u << 20, false); })->UseManualTime();
    add(d + "/O_DIRECT", [](benchmark::State& s) { disk_bandwidth(s, 800u << 20, true); })->UseManualTime();
  }
}

// Prints each case's medians side by side, with each implementation's time relative to the
// first one of its case (adjoint, inline 0, in memory...).
class summary_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
      std::string name = r.run_name.function_name;
      std::size_t slash = name.rfind('/');
      std::string c = name.substr(0, slash), impl = name.substr(slash + 1);
      if (!rows_.count(c)) order_.push_back(c);
      rows_[c].push_back({impl, r.GetAdjustedRealTime(), benchmark::GetTimeUnitString(r.time_unit)});
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nMedians; 'x first' = this time / the first implementation's time (lower is faster)\n");
    for (const std::string& c : order_) {
      std::printf("%s\n", c.c_str());
      const auto& row = rows_[c];
      for (const auto& e : row) {
        std::printf("  %-14s %12.3f %-3s  %6.2f x first\n", e.impl.c_str(), e.time, e.unit.c_str(),
                    e.time / row.front().time);
      }
    }
  }

 private:
  struct entry {
    std::string impl;
    double time;
    std::string unit;
  };
  std::vector<std::string> order_;
  std::map<std::string, std::vector<entry>> rows_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string reps = "--benchmark_repetitions=5", agg = "--benchmark_report_aggregates_only=true";
  args.insert(args.begin() + 1, {reps.data(), agg.data()});  // defaults; later flags override
  for (auto it = args.begin() + 1; it != args.end();) {
    if (std::strncmp(*it, "--spill_dir=", 12) == 0) {
      g_spill_dir = *it + 12;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  register_all();
  summary_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
