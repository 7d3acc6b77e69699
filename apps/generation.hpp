// Generation for `adjoint sample` and `adjoint train`'s samples: one loop, and one rule for
// how the tokens are shown.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "adjoint/model.hpp"
#include "adjoint/random.hpp"
#include "adjoint/tokenizer.hpp"

namespace adjoint::cli {

// <|endoftext|> is GPT-2's last token.
constexpr int gpt2_vocab_size = GPT2Tokenizer::eot_token + 1;
// Llama 3's ranked and special tokens.
constexpr int llama3_vocab_size = Llama3Tokenizer::num_ranked_tokens + Llama3Tokenizer::num_special_tokens;

// Text when the model's vocabulary is the tokenizer's; otherwise (no tokenizer, or a model
// trained on other token ids, like the tiny vocabularies of the tests) the ids, "[12][7]".
class TokenPrinter {
 public:
  // tokenizer may be null; it must outlive the printer.
  TokenPrinter(int vocab_size, const BytePairEncoding* tokenizer);
  bool prints_text() const { return tokenizer_ != nullptr; }
  // What to print for one more token. Text that ends inside a UTF-8 character is held back
  // until a later token completes it.
  std::string add(int token);
  // What add held back (bytes that never became a character print as U+FFFD).
  std::string finish();

 private:
  const BytePairEncoding* tokenizer_;  // null: print ids
  std::string pending_;
};

// The tokenizer of a model's vocabulary: GPT-2's for 50257 tokens (its files from bpe_dir, else
// $ADJOINT_BPE_DIR, else setup.sh's), Llama 3's for 128256 (llama3_dir, $ADJOINT_LLAMA3_DIR,
// setup.sh's); null for any other vocabulary. Throws when that tokenizer's files cannot be read.
std::unique_ptr<BytePairEncoding> tokenizer_for(int vocab_size, const std::string& bpe_dir,
                                                const std::string& llama3_dir);

struct SamplingOptions {
  float temperature = 1.0f;
  int top_k = 40;
};

// Feeds the context (not empty) through a KV cache, then samples up to `count` tokens, each
// passed to on_token; stops early when the model's positions run out.
void generate(const Model& model, std::span<const int> context, int count, const SamplingOptions& sampling,
              Rng& rng, const std::function<void(int)>& on_token);

}  // namespace adjoint::cli
