// AdamW in data-parallel training (adjoint/distributed.hpp): the gradients summed over the
// processes, their global norm, the update, and the moments in checkpoints, with AdamW's moments
// either whole on every process (--zero 0) or sharded (--zero 1, ZeRO-1): each process keeps the
// moments of 1/N of the parameters, receives the summed gradients of those only (reduce-scatter),
// updates those parameters, and then every process gathers all of them (all-gather). A checkpoint
// holds the whole moments either way (gathered to rank 0 for the write), so a run resumes with
// any process count and either stage. One process is a world of one with the same arithmetic.
//
// Overlap: with the hand-written backward, the reduction of a piece of gradients starts (a
// non-blocking collective) as soon as the backward has completed the layers it holds, while the
// backward goes on with earlier layers, as PyTorch DDP's buckets do; the same pieces, each summed on
// its own, so the sums have the bits of the blocking path's on 2 processes (where a sum of two is
// the same in any order).
//
// Clipping's norm: on one process with whole moments, the backward of the step's last micro-batch
// takes each layer's squared gradient norm as it completes the layer (the hand-written backward's
// Model::on_layer_backward), while its gradients may still be in cache; reduce_gradients then reads
// only the gradients no hook reported (embeddings, final norm, or every layer after a backward
// without hooks). The norm is the sum of the same parts in the same order either way.
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
  // zero_stage is 0 or 1 (std::invalid_argument otherwise). overlap: start reducing each layer's
  // gradients during the backward (Model::on_layer_backward) of a step's last micro-batch. The
  // optimizer sets the model's layer hook for its lifetime.
  DataParallelAdamW(Model& model, const AdamWConfig& config, const Communicator& world, int zero_stage,
                    bool overlap = false);
  ~DataParallelAdamW();
  DataParallelAdamW(const DataParallelAdamW&) = delete;
  DataParallelAdamW& operator=(const DataParallelAdamW&) = delete;

  // The next backward is the step's last micro-batch's: its layers' gradients are final as it
  // completes them, so their squared norms are taken then (one process), and with overlap their
  // sums start.
  void next_backward_is_last() { armed_ = true; }

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
  // Bytes of the summed gradients of this process's shard (stage 1; 0 for stage 0).
  std::size_t shard_gradient_bytes() const { return grads_.size() * sizeof(float); }
  // Milliseconds the last reduce_gradients took: the communication the backward did not hide.
  double last_reduce_ms() const { return last_reduce_ms_; }

 private:
  // The gradients go in pieces of about 2^19 floats, the message size Open MPI's shared-memory
  // collectives move fastest. Stage 0: [begin, begin + size), one MPI_Allreduce each. Stage 1: the
  // parameters padded to a multiple of N, in pieces of size = N·per_rank floats (the last piece
  // smaller); process r owns [begin + r·per_rank, begin + r·per_rank + per_rank) of each, so a piece
  // is one Communicator::reduce_scatter and one MPI_Allgather with no packing; its shard is these
  // ranges one after another, from shard_begin. The padding (fewer than N floats) is in the last
  // piece only, which goes through staging_. ready_after: the layer whose backward completes the
  // piece's gradients (-1: only the whole backward does).
  struct Piece {
    std::size_t begin, size, per_rank, shard_begin;
    int ready_after;
  };
  // Starts summing a piece: blocking, or non-blocking in the overlapped backward.
  void reduce_piece(std::size_t index, bool blocking);
  void on_layer_done(int layer);
  // Groups the gradients into the norm's parts (below).
  void lay_out_norm_parts(const std::vector<ParameterTensor>& tensors);
  // The global norm's parts: layer l's squared norm (its slices of the per-layer tensors), taken
  // in the backward when layer_done_[l], and the squared norm of the other tensors.
  double squared_norm_of_layers();
  // The parameters of a piece this process owns (none for a part that is only padding).
  std::size_t owned_count(const Piece& piece) const;
  std::size_t owned_begin(const Piece& piece) const { return piece.begin + world_.rank() * piece.per_rank; }

  Model& model_;
  AdamWConfig config_;
  const Communicator& world_;
  int zero_stage_;
  bool overlap_, armed_ = false;
  bool norm_in_backward_;  // one process, whole moments: the local gradients are the sum
  std::vector<std::vector<FloatRange>> layer_ranges_;
  std::vector<FloatRange> other_ranges_;
  std::vector<double> layer_squares_;
  std::vector<bool> layer_done_;
  std::optional<AdamW> whole_;  // stage 0
  std::vector<Piece> pieces_;
  std::vector<bool> started_;   // the pieces whose reduction the overlapped backward started
  double last_reduce_ms_ = 0;
  FloatArena m_, v_, grads_;    // stage 1: the shard's moments and summed gradients
  std::vector<float> staging_;  // stage 1: the last piece with its padding
};

}  // namespace adjoint
