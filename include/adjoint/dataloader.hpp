// Batches of (input, target) token sequences from a token file, read sequentially as llm.c's
// tinyshakespeare loader does: batch k is the B*T+1 tokens starting at k*B*T, wrapping to the
// start of the file when the next batch would run past its end. In data-parallel training the
// global batch is ranks*B rows, and process `rank` reads rows [rank*B, rank*B + B) of it: the
// tokens one process with ranks*B would see.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace adjoint {

class DataLoader {
 public:
  // Reads the whole token file (uint16 or uint32) once. Throws std::runtime_error naming the file
  // if it cannot be read, holds fewer than ranks*B*T+1 tokens or a token id outside [0, vocab_size)
  // (naming its position), std::invalid_argument if B or T is not positive.
  DataLoader(const std::filesystem::path& path, int B, int T, int vocab_size, int rank = 0, int ranks = 1);

  // Fills inputs() with tokens [q, q+B*T) and targets() with tokens [q+1, q+B*T+1), where
  // q = p + rank*B*T and p is position(), or 0 if p+ranks*B*T+1 would pass the end; row b of each
  // is its tokens [b*T, b*T+T). Afterwards position() is p+ranks*B*T. In a file with a loss mask,
  // a target whose mask byte is 0 (a prompt token) is kernels::no_target.
  void next_batch();
  const int* inputs() const { return inputs_.data(); }    // B*T tokens
  const int* targets() const { return targets_.data(); }  // B*T tokens

  // Where the next batch starts (before wrapping), for resuming a run.
  std::size_t position() const { return position_; }
  // Throws std::out_of_range if `position` is past the last token.
  void set_position(std::size_t position);
  void reset() { position_ = 0; }

  std::size_t num_batches() const { return (tokens_.size() - 1) / global_tokens_; }
  std::size_t num_tokens() const { return tokens_.size(); }
  int batch_size() const { return B_; }
  int sequence_length() const { return T_; }

 private:
  std::filesystem::path path_;
  int B_, T_;
  std::size_t batch_tokens_;   // B*T
  std::size_t global_tokens_;  // ranks*B*T
  std::size_t rank_offset_;    // rank*B*T
  std::vector<int> tokens_;
  std::vector<std::uint8_t> loss_mask_;  // empty, or one byte per token: 1 = learned as a target
  std::size_t position_ = 0;
  std::vector<int> inputs_, targets_;
};

}  // namespace adjoint
