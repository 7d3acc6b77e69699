#include "adjoint/dataloader.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "adjoint/kernels.hpp"
#include "adjoint/token_file.hpp"

namespace adjoint {

DataLoader::DataLoader(const std::filesystem::path& path, int B, int T, int vocab_size, int rank, int ranks)
    : path_(path), B_(B), T_(T) {
  if (B <= 0 || T <= 0)
    throw std::invalid_argument("data loader: batch size " + std::to_string(B) + " and sequence length " +
                                std::to_string(T) + " must be positive");
  if (ranks <= 0 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("data loader: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  batch_tokens_ = static_cast<std::size_t>(B) * static_cast<std::size_t>(T);
  global_tokens_ = batch_tokens_ * static_cast<std::size_t>(ranks);
  rank_offset_ = batch_tokens_ * static_cast<std::size_t>(rank);
  TokenFile file = read_token_file(path);
  tokens_ = std::move(file.tokens);
  loss_mask_ = std::move(file.loss_mask);
  if (tokens_.size() < global_tokens_ + 1)
    throw std::runtime_error(path.string() + ": " + std::to_string(tokens_.size()) +
                             " tokens are too few for one batch of " + (ranks > 1 ? "ranks*B*T+1 = " : "B*T+1 = ") +
                             std::to_string(global_tokens_ + 1));
  // Checked once here, not when a batch comes up hours into a run.
  const auto bad = std::find_if(tokens_.begin(), tokens_.end(), [&](int t) { return t < 0 || t >= vocab_size; });
  if (bad != tokens_.end())
    throw std::runtime_error(path.string() + ": token " + std::to_string(*bad) + " at position " +
                             std::to_string(bad - tokens_.begin()) + " is outside the model's vocabulary of " +
                             std::to_string(vocab_size) + " tokens");
  inputs_.resize(batch_tokens_);
  targets_.resize(batch_tokens_);
}

void DataLoader::next_batch() {
  if (position_ + global_tokens_ + 1 > tokens_.size()) position_ = 0;
  const int* batch = tokens_.data() + position_ + rank_offset_;
  const std::uint8_t* learned = loss_mask_.empty() ? nullptr : loss_mask_.data() + position_ + rank_offset_ + 1;
  for (std::size_t i = 0; i < batch_tokens_; ++i) {
    inputs_[i] = batch[i];
    targets_[i] = !learned || learned[i] ? batch[i + 1] : kernels::no_target;
  }
  position_ += global_tokens_;
}

void DataLoader::set_position(std::size_t position) {
  if (position >= tokens_.size())
    throw std::out_of_range(path_.string() + ": position " + std::to_string(position) +
                            " is past the last token (the file has " + std::to_string(tokens_.size()) + " tokens)");
  position_ = position;
}

}  // namespace adjoint
