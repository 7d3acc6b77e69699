// Llama 3's tokenizer: a hand-written matcher for its pre-tokenizer regex, its 256 special tokens,
// and the vocabulary read from the npm package llama3-tokenizer-js, where it is base64 text in a
// JavaScript file (decoded with OpenSSL).
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "adjoint/token_file.hpp"
#include "adjoint/tokenizer.hpp"
#include "../byte_level_bpe.hpp"

namespace adjoint {

namespace {

using byte_level_bpe::code_point_at;
using byte_level_bpe::CodePoint;
using byte_level_bpe::run_end;

bool is_line_break(char32_t c) { return c == '\r' || c == '\n'; }

// Length of "s|t|re|ve|m|ll|d" (ASCII letters in either case) at the start of `rest`, or 0.
std::size_t contraction_length(std::string_view rest) {
  auto lower = [&rest](std::size_t i) { return i < rest.size() ? rest[i] | 0x20 : 0; };
  switch (lower(0)) {
    case 's': case 't': case 'm': case 'd':
      return 1;
    case 'r': case 'v':
      return lower(1) == 'e' ? 2 : 0;
    case 'l':
      return lower(1) == 'l' ? 2 : 0;
    default:
      return 0;
  }
}

// End of the regex's match at `start` (which is < text.size()). The alternatives are tried in
// the regex's order; each comment names the one that matches.
std::size_t match_end(std::string_view text, std::size_t start) {
  const CodePoint first = code_point_at(text, start);
  const std::size_t second_start = start + first.size;
  // "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
  if (first.value == '\'')
    if (const std::size_t length = contraction_length(text.substr(second_start))) return second_start + length;

  // "[^\r\n\p{L}\p{N}]?\p{L}+": letters, after one character that is neither a line break, a letter
  // nor a digit (a space, a tab, punctuation...).
  if (first.cls == CharClass::Letter) return run_end(text, second_start, CharClass::Letter);
  const bool has_second = second_start < text.size();
  const CodePoint second = has_second ? code_point_at(text, second_start) : CodePoint{0, 0, CharClass::Space};
  if (has_second && second.cls == CharClass::Letter && first.cls != CharClass::Number && !is_line_break(first.value))
    return run_end(text, second_start + second.size, CharClass::Letter);

  // "\p{N}{1,3}"
  if (first.cls == CharClass::Number) {
    std::size_t end = second_start;
    for (int digits = 1; digits < 3 && end < text.size(); ++digits) {
      const CodePoint c = code_point_at(text, end);
      if (c.cls != CharClass::Number) break;
      end += c.size;
    }
    return end;
  }

  // " ?[^\s\p{L}\p{N}]+[\r\n]*"
  auto line_breaks_end = [&text](std::size_t end) {
    while (end < text.size() && is_line_break(static_cast<unsigned char>(text[end]))) ++end;
    return end;
  };
  if (first.value == ' ' && has_second && second.cls == CharClass::Other)
    return line_breaks_end(run_end(text, second_start + second.size, CharClass::Other));
  if (first.cls == CharClass::Other) return line_breaks_end(run_end(text, second_start, CharClass::Other));

  // `first` is whitespace. "\s*[\r\n]+": the whitespace run up to its last line break.
  std::size_t end = start, last_start = start, after_last_line_break = 0;
  while (end < text.size()) {
    const CodePoint c = code_point_at(text, end);
    if (c.cls != CharClass::Space) break;
    last_start = end;
    end += c.size;
    if (is_line_break(c.value)) after_last_line_break = end;
  }
  if (after_last_line_break > 0) return after_last_line_break;
  // "\s+(?!\S)": the run, backing off one code point when a non-space follows it, so that the last
  // space can join the next word; "\s+" when the run is a single code point.
  return end == text.size() || last_start == start ? end : last_start;
}

// The special tokens' names in id order from 128000, as in Meta's tokenizer.py for Llama 3.1.
constexpr std::array<std::string_view, 11> named_special_tokens = {
    "begin_of_text", "end_of_text", "reserved_special_token_0", "reserved_special_token_1",
    "finetune_right_pad_id", "reserved_special_token_2", "start_header_id", "end_header_id",
    "eom_id", "eot_id", "python_tag"};
constexpr std::size_t longest_special_token = sizeof("<|reserved_special_token_247|>") - 1;

// The contents of the JavaScript string literal `const <name> = "..."` in `source`, base64-decoded.
std::string decode_base64_constant(std::string_view source, const std::string& name, const std::string& where) {
  const std::string opening = "const " + name + " = \"";
  const std::size_t begin = source.find(opening);
  const std::size_t end = begin == std::string_view::npos ? begin : source.find('"', begin + opening.size());
  if (end == std::string_view::npos) throw std::runtime_error(where + "no string constant " + name);
  const std::string_view encoded = source.substr(begin + opening.size(), end - begin - opening.size());
  std::string decoded(encoded.size() / 4 * 3, '\0');
  const int size = encoded.size() % 4 == 0 && encoded.size() <= std::numeric_limits<int>::max()
                       ? EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                         reinterpret_cast<const unsigned char*>(encoded.data()),
                                         static_cast<int>(encoded.size()))
                       : -1;
  if (size < 0) throw std::runtime_error(where + name + " is not base64");
  // EVP_DecodeBlock counts the bytes that the padding "=" stands for as zero bytes.
  const std::size_t padding = encoded.ends_with("==") ? 2 : encoded.ends_with("=") ? 1 : 0;
  decoded.resize(static_cast<std::size_t>(size) - padding);
  return decoded;
}

}  // namespace

std::vector<std::string_view> pretokenize_llama3(std::string_view text) {
  return byte_level_bpe::pieces(text, match_end);
}

std::string Llama3Tokenizer::special_token_text(int token) {
  const int index = token - num_ranked_tokens;
  if (index < 0 || index >= num_special_tokens)
    throw std::out_of_range("token " + std::to_string(token) + " is not a Llama 3 special token");
  const std::string name = index < static_cast<int>(named_special_tokens.size())
                               ? std::string(named_special_tokens[index])
                               : "reserved_special_token_" + std::to_string(index - 8);
  return "<|" + name + "|>";
}

Llama3Tokenizer::Llama3Tokenizer(const std::filesystem::path& package_dir) {
  read_vocabulary(package_dir / "src" / "data-converted.js");
}

std::filesystem::path Llama3Tokenizer::find_dir(const std::string& given) {
  return byte_level_bpe::find_folder(given, "ADJOINT_LLAMA3_DIR", "llama3-tokenizer-js", "src/data-converted.js",
                                     "no Llama 3 tokenizer folder: pass --llama3-dir or set ADJOINT_LLAMA3_DIR "
                                     "(scripts/setup.sh puts one in .cache/npm/node_modules/llama3-tokenizer-js)");
}

// The file holds the 128000 ranked tokens' texts in GPT-2's byte alphabet, in rank order and
// separated by "\n", base64-encoded. (Its merges are all the ways to split each token into two
// tokens, which this rebuilds from the vocabulary.)
void Llama3Tokenizer::read_vocabulary(const std::filesystem::path& file) {
  const std::string where = file.string() + ": ";
  const std::string vocabulary = decode_base64_constant(read_file(file), "llama_vocab_base64", where);
  std::vector<std::string> token_bytes;
  token_bytes.reserve(num_ranked_tokens + num_special_tokens);
  for (std::size_t begin = 0; begin <= vocabulary.size();) {
    const std::size_t end = std::min(vocabulary.find('\n', begin), vocabulary.size());
    const std::string_view text = std::string_view(vocabulary).substr(begin, end - begin);
    std::optional<std::string> bytes = byte_level_bpe::token_text_to_bytes(text);
    if (!bytes || bytes->empty())
      throw std::runtime_error(where + "token " + std::to_string(token_bytes.size()) +
                               " is not a text in GPT-2's byte alphabet");
    token_bytes.push_back(std::move(*bytes));
    begin = end + 1;
  }
  if (token_bytes.size() != num_ranked_tokens)
    throw std::runtime_error(where + "the vocabulary has " + std::to_string(token_bytes.size()) + " tokens, expected " +
                             std::to_string(num_ranked_tokens));
  for (int token = num_ranked_tokens; token < num_ranked_tokens + num_special_tokens; ++token)
    token_bytes.push_back(special_token_text(token));
  set_vocabulary(std::move(token_bytes), where);

  for (int token = 0; token < num_ranked_tokens; ++token)
    if (!token_ids_.emplace(decode_token(token), token).second)
      throw std::runtime_error(where + "token " + std::to_string(token) + " repeats an earlier token");
  for (int token = num_ranked_tokens; token < vocab_size(); ++token) special_ids_.emplace(decode_token(token), token);
  // Joining two tokens ranks as the token they make, as in tiktoken.
  for (int token = 0; token < num_ranked_tokens; ++token) {
    const std::string_view bytes = decode_token(token);
    for (std::size_t split = 1; split < bytes.size(); ++split) {
      const auto left = token_ids_.find(bytes.substr(0, split));
      const auto right = token_ids_.find(bytes.substr(split));
      if (left != token_ids_.end() && right != token_ids_.end()) add_merge(left->second, right->second, token, token);
    }
  }
}

std::vector<int> Llama3Tokenizer::encode(std::string_view text) const {
  std::vector<int> tokens;
  PieceCache cache;
  // Pre-tokenizes text[begin, end) on its own, as the regex sees the text between special tokens.
  auto encode_ordinary = [&](std::size_t begin, std::size_t end) {
    byte_level_bpe::for_each_piece(text.substr(0, end), begin, match_end, [&](std::string_view piece) {
      // A piece that is a token is that token, even where BPE would split it otherwise.
      if (const auto found = token_ids_.find(piece); found != token_ids_.end()) {
        tokens.push_back(found->second);
      } else {
        append_piece_tokens(piece, cache, tokens);
      }
    });
  };
  std::size_t ordinary_begin = 0;
  for (std::size_t open = text.find("<|"); open != std::string_view::npos; open = text.find("<|", open + 1)) {
    const std::size_t close = text.substr(open, longest_special_token).find("|>");
    if (close == std::string_view::npos) continue;
    const auto special = special_ids_.find(text.substr(open, close + 2));
    if (special == special_ids_.end()) continue;
    encode_ordinary(ordinary_begin, open);
    tokens.push_back(special->second);
    ordinary_begin = open + close + 2;
  }
  encode_ordinary(ordinary_begin, text.size());
  return tokens;
}

}  // namespace adjoint
