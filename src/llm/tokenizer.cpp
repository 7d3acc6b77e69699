// Byte-level BPE as GPT-2's and Llama 3's tokenizers share it: JavaScript's character classes
// (from ICU's Unicode data) for pre-tokenization, the byte alphabet of their vocabularies, and BPE
// on token ids with merges keyed by the pair of ids they join.
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <queue>
#include <stdexcept>
#include <string>

#include "byte_level_bpe.hpp"

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

}  // namespace

CharClass classify(char32_t code_point) {
  return code_point < 128 ? ascii_classes[code_point] : classify_uncached(code_point);
}

namespace byte_level_bpe {

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

std::size_t run_end(std::string_view text, std::size_t offset, CharClass cls) {
  while (offset < text.size()) {
    const CodePoint c = code_point_at(text, offset);
    if (c.cls != cls) break;
    offset += c.size;
  }
  return offset;
}

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

std::filesystem::path find_folder(const std::string& given, const char* variable, const char* package,
                                  const char* marker, const std::string& missing) {
  if (!given.empty()) return given;
  if (const char* value = std::getenv(variable); value && *value) return value;
  // Where scripts/setup.sh installs the package in this source tree.
  const std::filesystem::path installed = std::filesystem::path(ADJOINT_NPM_PACKAGES) / package;
  if (std::filesystem::exists(installed / marker)) return installed;
  throw std::runtime_error(missing);
}

}  // namespace byte_level_bpe

void BytePairEncoding::set_vocabulary(std::vector<std::string> token_bytes, const std::string& where) {
  token_bytes_ = std::move(token_bytes);
  std::fill(std::begin(byte_tokens_), std::end(byte_tokens_), -1);
  for (int token = 0; token < vocab_size(); ++token)
    if (token_bytes_[token].size() == 1) byte_tokens_[static_cast<unsigned char>(token_bytes_[token][0])] = token;
  for (int b = 0; b < 256; ++b)
    if (byte_tokens_[b] < 0) throw std::runtime_error(where + "no token for byte " + std::to_string(b));
}

void BytePairEncoding::add_merge(int left, int right, int rank, int result) {
  merges_.emplace(pair_key(left, right), Merge{rank, result});
}

// Candidate pairs wait in a heap ordered by (rank, position); a merge pushes the two pairs it
// makes, and pairs that earlier merges changed are skipped when they come up. So each step joins
// the lowest-ranked pair, the leftmost of equals, in O(n log n) for a word of n bytes instead of
// rescanning the word after each merge.
void BytePairEncoding::apply_merges(std::vector<int>& word) const {
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

void BytePairEncoding::append_piece_tokens(std::string_view piece, PieceCache& cache,
                                           std::vector<int>& tokens) const {
  auto [cached, inserted] = cache.try_emplace(piece);
  if (inserted) {
    std::vector<int>& word = cached->second;
    for (const char byte : piece) word.push_back(byte_tokens_[static_cast<unsigned char>(byte)]);
    apply_merges(word);
  }
  tokens.insert(tokens.end(), cached->second.begin(), cached->second.end());
}

std::string_view BytePairEncoding::decode_token(int token) const {
  if (token < 0 || token >= vocab_size())
    throw std::out_of_range("token " + std::to_string(token) + " is outside the vocabulary [0, " +
                            std::to_string(vocab_size()) + ")");
  return token_bytes_[token];
}

std::string BytePairEncoding::decode(std::span<const int> tokens) const {
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
