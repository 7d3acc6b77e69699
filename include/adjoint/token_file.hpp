// Token files in llm.c's format, and whole-file reading for the tokenizer's inputs.
//
// A token file is a header of 256 little-endian int32 (header[0] = magic, header[1] = version,
// header[2] = number of tokens, the rest 0) followed by that many tokens, as llm.c's dev/data
// scripts write them: uint16 (magic 20240520, version 1) for vocabularies that fit, such as
// GPT-2's, and uint32 (magic 20240801, version 7) for larger ones, such as Llama 3's.
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
};
inline constexpr TokenFileFormat token_file_uint16{20240520, 1, 2};
inline constexpr TokenFileFormat token_file_uint32{20240801, 7, 4};
inline constexpr int token_file_header_ints = 256;

// uint16 when every id of a vocabulary of `vocab_size` tokens fits in it, else uint32.
TokenFileFormat token_file_format(int vocab_size);

// Writes the tokens in token_file_format(vocab_size) to "<path>.tmp" and renames it to `path`,
// so a reader never sees a half-written file. Throws std::runtime_error (naming the file) on
// I/O failure, if a token is outside [0, vocab_size) or if there are more than INT32_MAX tokens;
// `path` is then left as it was.
void write_token_file(const std::filesystem::path& path, std::span<const int> tokens, int vocab_size);

// Reads either format, told apart by the magic. Throws std::runtime_error naming the file if it
// is missing, has an unknown magic or a version that does not go with it, its size disagrees
// with the token count in its header, or a uint32 token is over INT32_MAX.
std::vector<int> read_token_file(const std::filesystem::path& path);

// The whole file as bytes; throws std::runtime_error naming the file if it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace adjoint
