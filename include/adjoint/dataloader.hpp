// Batches of (input, target) token sequences from a token file, read sequentially as llm.c's
// tinyshakespeare loader does: batch k is the B*T+1 tokens starting at k*B*T, wrapping to the
// start of the file when the next batch would run past its end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace adjoint {

class DataLoader {
 public:
  // Reads the whole token file once. Throws std::runtime_error naming the file if it cannot be
  // read, holds fewer than B*T+1 tokens or a token id >= vocab_size (naming its position),
  // std::invalid_argument if B or T is not positive.
  DataLoader(const std::filesystem::path& path, int B, int T, int vocab_size);

  // Fills inputs() with tokens [p, p+B*T) and targets() with tokens [p+1, p+B*T+1), where p is
  // position(), or 0 if p+B*T+1 would pass the end; row b of each is its tokens [b*T, b*T+T).
  // Afterwards position() is p+B*T.
  void next_batch();
  const int* inputs() const { return inputs_.data(); }   // B*T tokens
  const int* targets() const { return targets_.data(); } // B*T tokens

  // Where the next batch starts (before wrapping), for resuming a run.
  std::size_t position() const { return position_; }
  // Throws std::out_of_range if `position` is past the last token.
  void set_position(std::size_t position);
  void reset() { position_ = 0; }

  std::size_t num_batches() const { return (tokens_.size() - 1) / batch_tokens_; }
  std::size_t num_tokens() const { return tokens_.size(); }
  int batch_size() const { return B_; }
  int sequence_length() const { return T_; }

 private:
  std::filesystem::path path_;
  int B_, T_;
  std::size_t batch_tokens_;  // B*T
  std::vector<std::uint16_t> tokens_;
  std::size_t position_ = 0;
  std::vector<int> inputs_, targets_;
};

}  // namespace adjoint
