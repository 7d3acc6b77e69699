// AdamW in data-parallel training (adjoint/distributed.hpp): the gradients summed over the
// processes, their global norm, the update, and the moments in checkpoints, with AdamW's moments
// either whole on every process (--zero 0) or sharded (--zero 1, ZeRO-1): each process keeps the
// moments of 1/N of the parameters, receives the summed gradients of those only (reduce-scatter),
// updates those parameters, and then every process gathers all of them (all-gather). A checkpoint
// holds the whole moments either way (gathered to rank 0 for the write), so a run resumes with
// any process count and either stage. One process is a world of one with the same arithmetic.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adjoint/checkpoint.hpp"
#include "adjoint/distributed.hpp"
#include "adjoint/optimizer.hpp"

namespace adjoint {

class DataParallelAdamW {
 public:
  // zero_stage is 0 or 1 (std::invalid_argument otherwise).
  DataParallelAdamW(Model& model, const AdamWConfig& config, const Communicator& world, int zero_stage);

  // After the backward: sums the gradients over the processes (stage 0 all of them; stage 1 this
  // process's shard, zeroing the model's gradients) and returns the global norm of the sum.
  double reduce_gradients();
  // AdamW at lr on the summed gradients times grad_scale, which it zeroes; step counts from 1.
  // Stage 1 updates this process's shard, then all-gathers the parameters.
  void update(float lr, float grad_scale, int step);
  // Collective: calls write on rank 0 with the whole moments (stage 1 gathers them there, on rank 0
  // for the call only).
  void with_whole_moments(const std::function<void(const AdamW&)>& write);
  // Every process reads the training state (written with any stage and process count) and keeps
  // its part of the moments.
  TrainingProgress load_training_state(const std::string& path);
  // Bytes of AdamW moments (m and v) this process keeps.
  std::size_t moment_bytes() const;

 private:
  // Stage 1's layout: the parameters padded to a multiple of N, in pieces of N·per_rank floats
  // (about 2^19, the message size Open MPI's shared-memory collectives move fastest; the last piece
  // smaller). Process r owns [begin + r·per_rank, begin + r·per_rank + per_rank) of each piece,
  // so a piece is one MPI_Reduce_scatter_block and one MPI_Allgather with no packing; its shard is
  // these ranges one after another, from shard_begin. The padding (fewer than N floats) is in the
  // last piece only, which goes through staging_.
  struct Piece {
    std::size_t begin, per_rank, shard_begin;
  };
  // The parameters of a piece this process owns (none for a part that is only padding).
  std::size_t owned_count(const Piece& piece) const;
  std::size_t owned_begin(const Piece& piece) const { return piece.begin + world_.rank() * piece.per_rank; }

  Model& model_;
  AdamWConfig config_;
  const Communicator& world_;
  int zero_stage_;
  std::optional<AdamW> whole_;  // stage 0
  std::vector<Piece> pieces_;   // stage 1
  FloatArena m_, v_, grads_;    // stage 1: the shard's moments and summed gradients
  std::vector<float> staging_;  // stage 1: the last piece with its padding
};

}  // namespace adjoint
