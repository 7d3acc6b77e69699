// The processes training one model (adjoint/distributed.hpp), on MPI where the build has it.
#include "adjoint/distributed.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>
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

struct MpiSession {
  MpiSession() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  ~MpiSession() { MPI_Finalize(); }
};

// MPI counts are ints: a longer buffer goes in pieces.
constexpr std::size_t kMaxCount = INT_MAX / 2;
#endif

}  // namespace

Communicator::Communicator() {
#ifdef ADJOINT_HAVE_MPI
  if (!started_by_mpirun()) return;
  static MpiSession session;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

const Communicator& Communicator::world() {
  static const Communicator world;
  return world;
}

void Communicator::sum(float* data, std::size_t count) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
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
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  return value;
}

void Communicator::check_same(const std::string& what, const std::string& value) const {
  if (size_ == 1) return;
#ifdef ADJOINT_HAVE_MPI
  int length = int(value.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root_value(std::size_t(length), '\0');
  if (rank_ == 0) root_value = value;
  MPI_Bcast(root_value.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  int differs = root_value != value;
  MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (differs) {
    throw std::runtime_error("rank " + std::to_string(rank_) + ": " + what + " is " + value +
                             (root_value == value ? " here and on rank 0 but not on every process"
                                                  : " here but " + root_value + " on rank 0") +
                             "; every process must be started with the same settings and data");
  }
#endif
}

}  // namespace adjoint
