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

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw file_error(path, "read failed");
  return std::move(contents).str();
}

void write_token_file(const std::filesystem::path& path, std::span<const int> tokens) {
  if (tokens.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw file_error(path, std::to_string(tokens.size()) + " tokens do not fit a token file");
  std::vector<std::uint16_t> narrow(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] > std::numeric_limits<std::uint16_t>::max())
      throw file_error(path, "token " + std::to_string(tokens[i]) + " at index " + std::to_string(i) +
                                 " does not fit in uint16");
    narrow[i] = static_cast<std::uint16_t>(tokens[i]);
  }
  Header header{};
  header[0] = token_file_magic;
  header[1] = token_file_version;
  header[2] = static_cast<std::int32_t>(tokens.size());

  AtomicFileWriter out(path.string());
  out.write(header.data(), header_bytes);
  out.write(narrow.data(), narrow.size() * sizeof(std::uint16_t));
  out.commit();
}

std::vector<std::uint16_t> read_token_file(const std::filesystem::path& path) {
  std::ifstream in = open_stream(path);
  const std::uintmax_t size = std::filesystem::file_size(path);
  Header header{};
  if (size < header_bytes ||
      !in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header_bytes)))
    throw file_error(path, "too short for a token file (" + std::to_string(size) + " bytes, the header is " +
                               std::to_string(header_bytes) + ")");
  if (header[0] != token_file_magic)
    throw file_error(path, "not a token file (magic " + std::to_string(header[0]) + ", expected " +
                               std::to_string(token_file_magic) + ")");
  if (header[1] != token_file_version)
    throw file_error(path, "unsupported token file version " + std::to_string(header[1]) + " (expected " +
                               std::to_string(token_file_version) + ")");
  if (header[2] < 0) throw file_error(path, "negative token count " + std::to_string(header[2]) + " in header");
  const auto count = static_cast<std::size_t>(header[2]);
  const std::uintmax_t expected = header_bytes + count * sizeof(std::uint16_t);
  if (size != expected)
    throw file_error(path, "the header says " + std::to_string(count) + " tokens (" + std::to_string(expected) +
                               " bytes) but the file has " + std::to_string(size) + " bytes" +
                               (size < expected ? " (truncated)" : ""));
  std::vector<std::uint16_t> tokens(count);
  if (!in.read(reinterpret_cast<char*>(tokens.data()),
               static_cast<std::streamsize>(count * sizeof(std::uint16_t))))
    throw file_error(path, "read failed");
  return tokens;
}

}  // namespace adjoint
