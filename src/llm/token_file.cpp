#include "adjoint/token_file.hpp"

#include "adjoint/file_io.hpp"

#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace adjoint {

static_assert(std::endian::native == std::endian::little,
              "token files are little-endian and are read and written as raw memory");

namespace {

using Header = std::array<std::int32_t, token_file_header_ints>;
constexpr std::uintmax_t header_bytes = sizeof(Header);

std::runtime_error file_error(const std::filesystem::path& path, const std::string& what) {
  return std::runtime_error(path.string() + ": " + what);
}

std::ifstream open_stream(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) throw file_error(path, "is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw file_error(path, std::string("cannot open (") + std::strerror(errno) + ")");
  return in;
}

// Writes the tokens as std::uint16_t or std::uint32_t; the caller has checked that they fit.
template <typename Width>
void write_tokens(AtomicFileWriter& out, std::span<const int> tokens) {
  const std::vector<Width> stored(tokens.begin(), tokens.end());
  out.write(stored.data(), stored.size() * sizeof(Width));
}

template <typename Width>
std::vector<int> read_tokens(const std::filesystem::path& path, std::ifstream& in, std::size_t count) {
  std::vector<Width> stored(count);
  if (!in.read(reinterpret_cast<char*>(stored.data()), static_cast<std::streamsize>(count * sizeof(Width))))
    throw file_error(path, "read failed");
  std::vector<int> tokens(count);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (sizeof(Width) >= sizeof(int))
      if (stored[i] > static_cast<Width>(std::numeric_limits<int>::max()))
        throw file_error(path, "token " + std::to_string(stored[i]) + " at index " + std::to_string(i) + " is over " +
                                   std::to_string(std::numeric_limits<int>::max()));
    tokens[i] = static_cast<int>(stored[i]);
  }
  return tokens;
}

// The format a header names, or a one-line error.
TokenFileFormat format_of(const std::filesystem::path& path, const Header& header) {
  for (const TokenFileFormat& format :
       {token_file_uint16, token_file_uint32, masked_token_file_uint16, masked_token_file_uint32}) {
    if (header[0] == format.magic && header[1] == format.version) return format;
  }
  for (const auto& [magic, versions] :
       {std::pair{token_file_uint16.magic, "1"}, std::pair{token_file_uint32.magic, "7"},
        std::pair{masked_token_file_uint16.magic, "1 or 2"}}) {
    if (header[0] == magic)
      throw file_error(path, "unsupported token file version " + std::to_string(header[1]) + " for magic " +
                                 std::to_string(magic) + " (expected " + versions + ")");
  }
  throw file_error(path, "not a token file (magic " + std::to_string(header[0]) + ", expected " +
                             std::to_string(token_file_uint16.magic) + " for uint16 tokens, " +
                             std::to_string(token_file_uint32.magic) + " for uint32 or " +
                             std::to_string(masked_token_file_uint16.magic) + " for tokens with a loss mask)");
}

void check_mask(const std::filesystem::path& path, std::span<const std::uint8_t> loss_mask) {
  for (std::size_t i = 0; i < loss_mask.size(); ++i)
    if (loss_mask[i] > 1)
      throw file_error(
          path, "loss mask byte " + std::to_string(loss_mask[i]) + " at index " + std::to_string(i) + " is not 0 or 1");
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw file_error(path, "read failed");
  return std::move(contents).str();
}

TokenFileFormat token_file_format(int vocab_size, bool masked) {
  const bool narrow = vocab_size <= std::numeric_limits<std::uint16_t>::max() + 1;
  if (masked) return narrow ? masked_token_file_uint16 : masked_token_file_uint32;
  return narrow ? token_file_uint16 : token_file_uint32;
}

void write_token_file(const std::filesystem::path& path, std::span<const int> tokens, int vocab_size,
                      std::span<const std::uint8_t> loss_mask) {
  if (vocab_size <= 0) throw file_error(path, "vocabulary size " + std::to_string(vocab_size) + " is not positive");
  if (tokens.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw file_error(path, std::to_string(tokens.size()) + " tokens do not fit a token file");
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab_size)
      throw file_error(path, "token " + std::to_string(tokens[i]) + " at index " + std::to_string(i) +
                                 " is outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
  const bool masked = !loss_mask.empty();
  if (masked && loss_mask.size() != tokens.size())
    throw file_error(path, "the loss mask has " + std::to_string(loss_mask.size()) + " bytes for " +
                               std::to_string(tokens.size()) + " tokens");
  check_mask(path, loss_mask);
  const TokenFileFormat format = token_file_format(vocab_size, masked);
  Header header{};
  header[0] = format.magic;
  header[1] = format.version;
  header[2] = static_cast<std::int32_t>(tokens.size());

  AtomicFileWriter out(path.string());
  out.write(header.data(), header_bytes);
  if (format.bytes_per_token == 2) {
    write_tokens<std::uint16_t>(out, tokens);
  } else {
    write_tokens<std::uint32_t>(out, tokens);
  }
  if (masked) out.write(loss_mask.data(), loss_mask.size());
  out.commit();
}

TokenFile read_token_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  const std::uintmax_t size = std::filesystem::file_size(path);
  Header header{};
  if (size < header_bytes ||
      !in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header_bytes)))
    throw file_error(path, "too short for a token file (" + std::to_string(size) + " bytes, the header is " +
                               std::to_string(header_bytes) + ")");
  const TokenFileFormat format = format_of(path, header);
  if (header[2] < 0) throw file_error(path, "negative token count " + std::to_string(header[2]) + " in header");
  const auto count = static_cast<std::size_t>(header[2]);
  const std::size_t bytes_per_token = static_cast<std::size_t>(format.bytes_per_token) + (format.masked ? 1 : 0);
  const std::uintmax_t expected = header_bytes + count * bytes_per_token;
  if (size != expected)
    throw file_error(path, "the header says " + std::to_string(count) + " tokens of " +
                               std::to_string(bytes_per_token) + " bytes (" + std::to_string(expected) +
                               " bytes in all) but the file has " + std::to_string(size) + " bytes" +
                               (size < expected ? " (truncated)" : ""));
  TokenFile file;
  file.tokens = format.bytes_per_token == 2 ? read_tokens<std::uint16_t>(path, in, count)
                                            : read_tokens<std::uint32_t>(path, in, count);
  if (format.masked) {
    file.loss_mask.resize(count);
    if (!in.read(reinterpret_cast<char*>(file.loss_mask.data()), static_cast<std::streamsize>(count)))
      throw file_error(path, "read failed");
    check_mask(path, file.loss_mask);
  }
  return file;
}

}  // namespace adjoint
