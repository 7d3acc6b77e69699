#include "generation.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "adjoint/sampler.hpp"

namespace adjoint::cli {

TokenPrinter::TokenPrinter(int vocab_size, const BytePairEncoding* tokenizer)
    : tokenizer_(tokenizer && tokenizer->vocab_size() == vocab_size ? tokenizer : nullptr) {}

std::unique_ptr<BytePairEncoding> tokenizer_for(int vocab_size, const std::string& bpe_dir,
                                                const std::string& llama3_dir) {
  if (vocab_size == gpt2_vocab_size) return std::make_unique<GPT2Tokenizer>(GPT2Tokenizer::find_bpe_dir(bpe_dir));
  if (vocab_size == llama3_vocab_size) {
    return std::make_unique<Llama3Tokenizer>(Llama3Tokenizer::find_dir(llama3_dir));
  }
  return nullptr;
}

std::string TokenPrinter::add(int token) {
  if (!tokenizer_) return fmt::format("[{}]", token);
  pending_ += tokenizer_->decode_token(token);
  const std::size_t complete = utf8_complete_prefix(pending_);
  std::string text = replace_invalid_utf8(std::string_view(pending_).substr(0, complete));
  pending_.erase(0, complete);
  return text;
}

std::string TokenPrinter::finish() {
  std::string text = replace_invalid_utf8(pending_);
  pending_.clear();
  return text;
}

void generate(const Model& model, std::span<const int> context, int count, const SamplingOptions& sampling,
              Rng& rng, const std::function<void(int)>& on_token) {
  // The cache holds the positions this generation can use, not all of a long-context model's.
  const int positions = int(std::min<std::size_t>(model.max_seq_len(), context.size() + count));
  const std::unique_ptr<TokenGenerator> generator = model.generator(positions);
  const float* logits = nullptr;
  for (int token : context) logits = generator->feed(token);
  for (int i = 0; i < count; i++) {
    const int token = sample_token(logits, model.vocab_size(), sampling.temperature, sampling.top_k, rng);
    on_token(token);
    if (i + 1 == count || generator->position() == positions) break;
    logits = generator->feed(token);
  }
}

}  // namespace adjoint::cli
