// Data-parallel training across processes: the processes that `mpirun -np N` starts train one
// model, each on its own slice of every global batch, with gradients summed over all of them (MPI).
// A process started without mpirun, or a build without MPI, is a world of one. When one process
// dies, mpirun stops the others, and each says so in one line; a collective that waits longer than
// ADJOINT_MPI_TIMEOUT seconds (default 600) ends its process the same way.
#pragma once
#include <cstddef>
#include <string>

namespace adjoint {

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
  // The collectives of ZeRO-1 (adjoint/sharded_adamw.hpp), on pieces of fewer than 2^31 floats each:
  // recv (count floats) = the sum over the processes of their send[rank·count, rank·count + count);
  void reduce_scatter(const float* send, float* recv, std::size_t count) const;
  // in place, data[r·count, r·count + count) from process r, on every process;
  void all_gather(float* data, std::size_t count) const;
  // on rank 0, recv[r·count, r·count + count) = process r's send (count floats); recv is unused elsewhere.
  void gather(const float* send, float* recv, std::size_t count) const;
  // Non-blocking sum and reduce_scatter (MPI_Iallreduce, MPI_Ireduce_scatter_block), to overlap
  // communication with the backward: they complete in wait(). Open MPI moves them on only inside
  // MPI calls, which progress() is (MPI_Testall). The buffers must stay untouched until wait().
  void start_sum(float* data, std::size_t count) const;
  void start_reduce_scatter(const float* send, float* recv, std::size_t count) const;
  void progress() const;
  void wait() const;
  // Throws std::runtime_error on every process when `value` differs between processes, naming
  // `what` (a flag, say), this process's value and rank 0's.
  void check_same(const std::string& what, const std::string& value) const;

 private:
  Communicator();
  int rank_ = 0, size_ = 1;
};

}  // namespace adjoint
