// The processes training one model (adjoint/distributed.hpp), on MPI where the build has it.
#include "adjoint/distributed.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifdef ADJOINT_HAVE_MPI
// The C API only: Open MPI's deprecated C++ bindings need a library we do not link.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace adjoint {
namespace {

#ifdef ADJOINT_HAVE_MPI
// mpirun (Open MPI, or any PMI-based launcher) tells its processes the world size.
bool started_by_mpirun() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(var)) return true;
  return false;
}

// The one line a process prints when the job ends under it, prepared before any signal arrives
// (a handler may only write and exit).
char stopped_message[256];
std::size_t stopped_length = 0;

// mpirun stops every other process with SIGTERM when one of them dies (a crash, kill -9, a lost
// node): say so in one line instead of dying silently.
void on_stopped(int) {
  if (write(STDERR_FILENO, stopped_message, stopped_length) < 0) {}
  _exit(1);
}

// A collective that waits longer than the timeout means a process is gone without its
// connection closing (a machine that vanished): end this process with one line, and mpirun ends
// the rest.
class Watchdog {
 public:
  Watchdog(double seconds, std::string message)
      : seconds_(seconds), message_(std::move(message)), thread_([this] { watch(); }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  void enter() { since_ = now(); }
  void leave() { since_ = 0; }

 private:
  static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
  void watch() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const double since = since_;
      if (since > 0 && now() - since > seconds_) {
        if (write(STDERR_FILENO, message_.data(), message_.size()) < 0) {}
        _exit(1);
      }
    }
  }
  double seconds_;
  std::string message_;
  std::atomic<double> since_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Watchdog* watchdog = nullptr;  // set when the world is larger than one process

// Marks the time spent in one collective for the watchdog.
struct Waiting {
  Waiting() { watchdog->enter(); }
  ~Waiting() { watchdog->leave(); }
};

struct MpiSession {
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  ~MpiSession() { MPI_Finalize(); }
};

// Seconds a collective may wait: ADJOINT_MPI_TIMEOUT, default 600 (a checkpoint of a large model
// on a slow disk keeps the other processes waiting that long at most).
double collective_timeout() {
  const char* env = std::getenv("ADJOINT_MPI_TIMEOUT");
  if (!env) return 600;
  char* end = nullptr;
  const double seconds = std::strtod(env, &end);
  if (end == env || *end || !(seconds > 0)) {
    throw std::invalid_argument(std::string("ADJOINT_MPI_TIMEOUT=") + env + ": expected seconds > 0");
  }
  return seconds;
}

// The buffer goes in pieces of 2 MB: Open MPI's shared-memory allreduce moves those at ~11 GB/s
// here and a 500 MB one at ~2.5 GB/s (bench/distributed/allreduce_bench); MPI counts are ints anyway.
constexpr std::size_t kMaxCount = std::size_t(1) << 19;

// The non-blocking collectives started and not yet waited for.
std::vector<MPI_Request> pending;
// What wait() copies once they are done: this process's part of each piece summed whole
// (start_reduce_scatter on one machine).
struct Copy {
  const float* from;
  float* to;
  std::size_t count;
};
std::vector<Copy> copies_after_wait;

// Process root's value, on every process.
std::string broadcast(const std::string& value, int root) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int length = int(value.size());
  MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
  std::string result = rank == root ? value : std::string(std::size_t(length), '\0');
  MPI_Bcast(result.data(), length, MPI_CHAR, root, MPI_COMM_WORLD);
  return result;
}
#endif

}  // namespace

Communicator::Communicator() {
#ifdef ADJOINT_HAVE_MPI
  if (!started_by_mpirun()) return;
  static MpiSession session;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  one_node_ = node_size == size_;
  stopped_length = std::size_t(std::snprintf(stopped_message, sizeof stopped_message,
                                             "adjoint: error: rank %d: the job stopped because another of its %d "
                                             "processes ended (crashed, killed or lost); the last checkpoint is kept\n",
                                             rank_, size_));
  std::signal(SIGTERM, on_stopped);
  const double timeout = collective_timeout();
  static Watchdog the_watchdog(timeout, "adjoint: error: rank " + std::to_string(rank_) +
                                            ": no answer from the other processes for " + std::to_string(int(timeout)) +
                                            " s (ADJOINT_MPI_TIMEOUT); the last checkpoint is kept\n");
  watchdog = &the_watchdog;
#endif
}

const Communicator& Communicator::world() {
  static const Communicator world;
  return world;
}

void Communicator::sum(float* data, std::size_t count) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
  const Waiting waiting;
  for (std::size_t done = 0; done < count; done += kMaxCount) {
    const int n = int(std::min(kMaxCount, count - done));
    MPI_Allreduce(MPI_IN_PLACE, data + done, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
#else
  (void)data;
  (void)count;
#endif
}

double Communicator::sum(double value) const {
  if (size_ == 1) return value;
#ifdef ADJOINT_HAVE_MPI
  const Waiting waiting;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return value;
}

void Communicator::reduce_scatter(float* data, float* recv, std::size_t count) const {
#ifdef ADJOINT_HAVE_MPI
  if (size_ > 1) {
    const Waiting waiting;
    if (!one_node_) {
      MPI_Reduce_scatter_block(data, recv, int(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      return;
    }
    MPI_Allreduce(MPI_IN_PLACE, data, int(std::size_t(size_) * count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
#endif
  std::copy_n(data + std::size_t(rank_) * count, count, recv);
}

void Communicator::all_gather(float* data, std::size_t count) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
  const Waiting waiting;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, int(count), MPI_FLOAT, MPI_COMM_WORLD);
#else
  (void)data;
  (void)count;
#endif
}

void Communicator::gather(const float* send, float* recv, std::size_t count) const {
#ifdef ADJOINT_HAVE_MPI
  if (size_ > 1) {
    const Waiting waiting;
    MPI_Gather(send, int(count), MPI_FLOAT, recv, int(count), MPI_FLOAT, 0, MPI_COMM_WORLD);
    return;
  }
#endif
  std::copy(send, send + count, recv);
}

void Communicator::start_sum(float* data, std::size_t count) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
  MPI_Iallreduce(MPI_IN_PLACE, data, int(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &pending.emplace_back());
#else
  (void)data;
  (void)count;
#endif
}

void Communicator::start_reduce_scatter(float* data, float* recv, std::size_t count) const {
#ifdef ADJOINT_HAVE_MPI
  if (size_ > 1) {
    if (!one_node_) {
      MPI_Ireduce_scatter_block(data, recv, int(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &pending.emplace_back());
      return;
    }
    MPI_Iallreduce(MPI_IN_PLACE, data, int(std::size_t(size_) * count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                   &pending.emplace_back());
    copies_after_wait.push_back({data + std::size_t(rank_) * count, recv, count});
    return;
  }
#endif
  std::copy_n(data, count, recv);
}

void Communicator::progress() const {
#ifdef ADJOINT_HAVE_MPI
  if (pending.empty()) return;
  int done = 0;
  MPI_Testall(int(pending.size()), pending.data(), &done, MPI_STATUSES_IGNORE);
#endif
}

void Communicator::wait() const {
#ifdef ADJOINT_HAVE_MPI
  if (pending.empty()) return;
  const Waiting waiting;
  MPI_Waitall(int(pending.size()), pending.data(), MPI_STATUSES_IGNORE);
  pending.clear();
  for (const Copy& copy : copies_after_wait) std::copy_n(copy.from, copy.count, copy.to);
  copies_after_wait.clear();
#endif
}

void Communicator::check_same(const std::string& what, const std::string& value) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
  const Waiting waiting;
  const std::string root_value = broadcast(value, 0);
  // The first process whose value differs from rank 0's (size_ when none does).
  int first = root_value != value ? rank_ : size_;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return;
  const std::string first_value = broadcast(value, first);
  // Rank 0 alone says it, so that the job prints one line; the job ends for this reason, so no
  // process adds that another one ended.
  stopped_length = 0;
  if (rank_ != 0) throw ReportedByRankZero();
  throw std::runtime_error(what + " is " + first_value + " on rank " + std::to_string(first) + " but " + value +
                           " on rank 0; every process must be started with the same settings and data");
#endif
}

}  // namespace adjoint
