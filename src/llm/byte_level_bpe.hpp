// What GPT-2's and Llama 3's tokenizers share besides BytePairEncoding: walking UTF-8 text by
// code point with JavaScript's character classes (for the pre-tokenizer regexes), and the byte
// alphabet both vocabularies are written in.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adjoint/tokenizer.hpp"

namespace adjoint::byte_level_bpe {

struct CodePoint {
  char32_t value;
  std::size_t size;  // bytes of UTF-8
  CharClass cls;
};

// The code point at `offset` (< text.size()); throws std::invalid_argument naming the offset if
// the text is not valid UTF-8 there.
CodePoint code_point_at(std::string_view text, std::size_t offset);

// End of the run of code points of class `cls` that starts at `offset`.
std::size_t run_end(std::string_view text, std::size_t offset, CharClass cls);

// Calls visit(piece) for each match of a pre-tokenizer regex in text[begin, text.size()), where
// match_end(text, start) is the end of the regex's match at start. The regexes look neither back
// nor past the end of `text`.
template <typename MatchEnd, typename Visit>
void for_each_piece(std::string_view text, std::size_t begin, MatchEnd match_end, Visit visit) {
  for (std::size_t start = begin; start < text.size();) {
    const std::size_t end = match_end(text, start);
    visit(text.substr(start, end - start));
    start = end;
  }
}

// The matches, as views into `text`.
template <typename MatchEnd>
std::vector<std::string_view> pieces(std::string_view text, MatchEnd match_end) {
  std::vector<std::string_view> matches;
  for_each_piece(text, 0, match_end, [&](std::string_view piece) { matches.push_back(piece); });
  return matches;
}

// Both vocabularies store tokens as text in which each byte is one printable code point (GPT-2's
// bytes_to_unicode): the printable Latin-1 bytes stand for themselves, the other 68 bytes for
// U+0100 onwards in byte order. The bytes a token's text stands for, or nothing if it has a code
// point outside this alphabet.
std::optional<std::string> token_text_to_bytes(std::string_view token_text);

// Where a tokenizer's files are: `given` if not empty, else $<variable>, else the npm `package`
// where scripts/setup.sh installs it in this source tree if it holds `marker`; throws `missing`
// (which says how to give one) when none is there.
std::filesystem::path find_folder(const std::string& given, const char* variable, const char* package,
                                  const char* marker, const std::string& missing);

}  // namespace adjoint::byte_level_bpe
