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
        throw file_error(path, "token " + std::to_string(stored[i]) + " at index " + std::to_string(i) +
                                 " is over " + std::to_string(std::numeric_limits<int>::max()));
    tokens[i] = static_cast<int>(stored[i]);
  }
  return tokens;
}

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw file_error(path, "read failed");
  return std::move(contents).str();
}

TokenFileFormat token_file_format(int vocab_size) {
  return vocab_size <= std::numeric_limits<std::uint16_t>::max() + 1 ? token_file_uint16 : token_file_uint32;
}

void write_token_file(const std::filesystem::path& path, std::span<const int> tokens, int vocab_size) {
  if (vocab_size <= 0) throw file_error(path, "vocabulary size " + std::to_string(vocab_size) + " is not positive");
  if (tokens.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw file_error(path, std::to_string(tokens.size()) + " tokens do not fit a token file");
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab_size)
      throw file_error(path, "token " + std::to_string(tokens[i]) + " at index " + std::to_string(i) +
                                 " is outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
  const TokenFileFormat format = token_file_format(vocab_size);
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
  out.commit();
}

std::vector<int> read_token_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  const std::uintmax_t size = std::filesystem::file_size(path);
  Header header{};
  if (size < header_bytes ||
      !in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header_bytes)))
    throw file_error(path, "too short for a token file (" + std::to_string(size) + " bytes, the header is " +
                               std::to_string(header_bytes) + ")");
  TokenFileFormat format{};
  if (header[0] == token_file_uint16.magic) {
    format = token_file_uint16;
  } else if (header[0] == token_file_uint32.magic) {
    format = token_file_uint32;
  } else {
    throw file_error(path, "not a token file (magic " + std::to_string(header[0]) + ", expected " +
                               std::to_string(token_file_uint16.magic) + " for uint16 tokens or " +
                               std::to_string(token_file_uint32.magic) + " for uint32)");
  }
  if (header[1] != format.version)
    throw file_error(path, "unsupported token file version " + std::to_string(header[1]) + " for magic " +
                               std::to_string(format.magic) + " (expected " + std::to_string(format.version) + ")");
  if (header[2] < 0) throw file_error(path, "negative token count " + std::to_string(header[2]) + " in header");
  const auto count = static_cast<std::size_t>(header[2]);
  const std::uintmax_t expected = header_bytes + count * static_cast<std::size_t>(format.bytes_per_token);
  if (size != expected)
    throw file_error(path, "the header says " + std::to_string(count) + " tokens of " +
                               std::to_string(format.bytes_per_token) + " bytes (" + std::to_string(expected) +
                               " bytes in all) but the file has " + std::to_string(size) + " bytes" +
                               (size < expected ? " (truncated)" : ""));
  return format.bytes_per_token == 2 ? read_tokens<std::uint16_t>(path, in, count)
                                     : read_tokens<std::uint32_t>(path, in, count);
}

}  // namespace adjoint
