// Token files in llm.c's format, and whole-file reading for the tokenizer's inputs.
//
// A token file is a header of 256 little-endian int32 (header[0] = magic, header[1] = version,
// header[2] = number of tokens, the rest 0) followed by that many tokens, as llm.c's dev/data
// scripts write them: uint16 (magic 20240520, version 1) for vocabularies that fit, such as
// GPT-2's, and uint32 (magic 20240801, version 7) for larger ones, such as Llama 3's.
// Instruction data (`adjoint prepare --instructions`) adds a loss mask, in a format of our own:
// magic 20241129, version 1 (uint16 tokens) or 2 (uint32), the tokens, then one byte per token,
// 1 where the model learns to predict that token (a response) and 0 where not (a prompt).
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace adjoint {

struct TokenFileFormat {
  std::int32_t magic;
  std::int32_t version;
  int bytes_per_token;
  bool masked = false;  // a loss-mask byte per token follows the tokens
};
inline constexpr TokenFileFormat token_file_uint16{20240520, 1, 2};
inline constexpr TokenFileFormat token_file_uint32{20240801, 7, 4};
inline constexpr TokenFileFormat masked_token_file_uint16{20241129, 1, 2, true};
inline constexpr TokenFileFormat masked_token_file_uint32{20241129, 2, 4, true};
inline constexpr int token_file_header_ints = 256;

// uint16 when every id of a vocabulary of `vocab_size` tokens fits in it, else uint32; masked
// when the file carries a loss mask.
TokenFileFormat token_file_format(int vocab_size, bool masked = false);

// A token file's contents. loss_mask is empty (every token is learned) or has one 0/1 byte per token.
struct TokenFile {
  std::vector<int> tokens;
  std::vector<std::uint8_t> loss_mask;
};

// Writes the tokens (and the loss mask, if not empty) in token_file_format(vocab_size, masked) to
// "<path>.tmp" and renames it to `path`, so a reader never sees a half-written file. Throws
// std::runtime_error (naming the file) on I/O failure, if a token is outside [0, vocab_size), the
// mask's size differs from the tokens' or a mask byte is not 0 or 1, or if there are more than
// INT32_MAX tokens; `path` is then left as it was.
void write_token_file(const std::filesystem::path& path, std::span<const int> tokens, int vocab_size,
                      std::span<const std::uint8_t> loss_mask = {});

// Reads any of the formats, told apart by the magic and version. Throws std::runtime_error naming
// the file if it is missing, has an unknown magic or a version that does not go with it, its size
// disagrees with the token count in its header, a uint32 token is over INT32_MAX or a mask byte is
// not 0 or 1.
TokenFile read_token_file(const std::filesystem::path& path);

// The whole file as bytes; throws std::runtime_error naming the file if it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace adjoint
