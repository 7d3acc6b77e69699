// Token files in llm.c's format, and whole-file reading for the tokenizer's inputs.
//
// A token file is a header of 256 little-endian int32 (header[0] = 20240520, header[1] = 1,
// header[2] = number of tokens, the rest 0) followed by that many uint16 tokens.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace adjoint {

inline constexpr std::int32_t token_file_magic = 20240520;
inline constexpr std::int32_t token_file_version = 1;
inline constexpr int token_file_header_ints = 256;

// Writes to "<path>.tmp" and renames it to `path`, so a reader never sees a half-written file.
// Throws std::runtime_error (naming the file) on I/O failure, or if a token is outside
// [0, 65535] or there are more than INT32_MAX tokens; `path` is then left as it was.
void write_token_file(const std::filesystem::path& path, std::span<const int> tokens);

// Throws std::runtime_error naming the file if it is missing, has the wrong magic or version,
// or its size disagrees with the token count in its header.
std::vector<std::uint16_t> read_token_file(const std::filesystem::path& path);

// The whole file as bytes; throws std::runtime_error naming the file if it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace adjoint
