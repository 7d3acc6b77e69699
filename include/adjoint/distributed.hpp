// Data-parallel training across processes: the processes that `mpirun -np N` starts train one
// model, each on its own slice of every global batch, with gradients summed over all of them (MPI).
// A process started without mpirun, or a build without MPI, is a world of one. When one process
// dies, mpirun stops the others, and each says so in one line; a collective that waits longer than
// ADJOINT_MPI_TIMEOUT seconds (default 600) ends its process the same way.
#pragma once
#include <cstddef>
#include <exception>
#include <string>

namespace adjoint {

// What the processes other than rank 0 throw when rank 0 reports an error for the whole job (a
// setting that differs between processes): they end with a non-zero status and print nothing, so
// the job says it in one line.
class ReportedByRankZero : public std::exception {
 public:
  const char* what() const noexcept override { return "reported by rank 0"; }
};

class Communicator {
 public:
  // MPI_COMM_WORLD when this process was started by mpirun (MPI is initialised on first use and
  // finalised at exit), else this process alone.
  static const Communicator& world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The process that writes logs, samples and checkpoints.
  bool root() const { return rank_ == 0; }

  // In place, the element-wise sum over all processes (the same bits on every process).
  void sum(float* data, std::size_t count) const;
  double sum(double value) const;
  // The collectives of ZeRO-1 (adjoint/data_parallel_adamw.hpp), on pieces of fewer than 2^31 floats:
  // recv (count floats) = the sum over the processes of their data[rank·count, rank·count + count),
  // data (size()·count floats) left summed or unchanged. When all the processes share one machine
  // this sums the whole piece in place (MPI_Allreduce) and copies this process's part: Open MPI
  // 4.1's MPI_Reduce_scatter_block took 1.6x as long for a 2 MB piece (docs/distributed.md), and
  // the extra bytes cross memory, not a wire. Across machines it is MPI_Reduce_scatter_block, which
  // sends half the bytes.
  void reduce_scatter(float* data, float* recv, std::size_t count) const;
  // in place, data[r·count, r·count + count) from process r, on every process;
  void all_gather(float* data, std::size_t count) const;
  // on rank 0, recv[r·count, r·count + count) = process r's send (count floats); recv is unused elsewhere.
  void gather(const float* send, float* recv, std::size_t count) const;
  // Non-blocking sum and reduce_scatter (MPI_Iallreduce; MPI_Iallreduce or MPI_Ireduce_scatter_block
  // as above), to overlap communication with the backward: they complete in wait(). Open MPI moves
  // them on only inside MPI calls, which progress() is (MPI_Testall). The buffers must stay
  // untouched until wait().
  void start_sum(float* data, std::size_t count) const;
  void start_reduce_scatter(float* data, float* recv, std::size_t count) const;
  void progress() const;
  void wait() const;
  // Collective: when `value` differs between processes, throws std::runtime_error on rank 0, naming
  // `what` (a flag, say), the first differing process's value and rank 0's, and ReportedByRankZero
  // on the others.
  void check_same(const std::string& what, const std::string& value) const;

 private:
  Communicator();
  int rank_ = 0, size_ = 1;
  bool one_node_ = true;  // all the processes share one machine's memory
};

}  // namespace adjoint
