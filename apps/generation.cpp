#include "generation.hpp"

#include <fmt/core.h>

#include "adjoint/sampler.hpp"

namespace adjoint::cli {

TokenPrinter::TokenPrinter(const GPT2Config& config, const Tokenizer* tokenizer)
    : tokenizer_(tokenizer && tokenizer->vocab_size() == config.vocab_size ? tokenizer : nullptr) {}

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

int start_token(const GPT2Config& config) {
  return Tokenizer::eot_token < config.vocab_size ? Tokenizer::eot_token : 0;
}

void generate(const GPT2& model, std::span<const int> context, int count, const SamplingOptions& sampling,
              Rng& rng, const std::function<void(int)>& on_token) {
  const GPT2Config& c = model.config();
  Generator generator(model, int(context.size()) + count);
  const float* logits = nullptr;
  for (int token : context) logits = generator.feed(token);
  for (int i = 0; i < count; i++) {
    const int token = sample_token(logits, c.vocab_size, sampling.temperature, sampling.top_k, rng);
    on_token(token);
    if (i + 1 == count || generator.position() == c.max_seq_len) break;
    logits = generator.feed(token);
  }
}

}  // namespace adjoint::cli
