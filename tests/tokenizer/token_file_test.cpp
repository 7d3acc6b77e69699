// Token files: llm.c's layout, atomic writes, and one-line errors naming the file.
#include <cstring>

#include "adjoint/token_file.hpp"
#include "test_support.hpp"

namespace adjoint::test {
namespace {

std::string read_error(const std::filesystem::path& path) {
  try {
    read_token_file(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

// The bytes of a token file with the given header fields, built by hand.
std::string token_file_bytes(std::int32_t magic, std::int32_t version, std::int32_t count,
                             const std::vector<std::uint16_t>& tokens) {
  std::int32_t header[256] = {magic, version, count};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof header);
  bytes.append(reinterpret_cast<const char*>(tokens.data()), tokens.size() * 2);
  return bytes;
}

TEST(TokenFile, LayoutIsLlmCs) {
  TempDir dir;
  write_token_file(dir / "t.bin", std::vector<int>{1, 65535, 0, 50256});
  EXPECT_EQ(read_file(dir / "t.bin"), token_file_bytes(20240520, 1, 4, {1, 65535, 0, 50256}));
  EXPECT_FALSE(std::filesystem::exists(dir / "t.bin.tmp"));
}

TEST(TokenFile, RoundTrips) {
  TempDir dir;
  std::vector<int> tokens(100000);
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int>((i * 7919) % 65536);
  write_token_file(dir / "t.bin", tokens);
  const std::vector<std::uint16_t> read = read_token_file(dir / "t.bin");
  EXPECT_EQ(std::vector<int>(read.begin(), read.end()), tokens);

  write_token_file(dir / "t.bin", std::vector<int>{});  // replaces the file
  EXPECT_TRUE(read_token_file(dir / "t.bin").empty());
}

TEST(TokenFile, BadTokenLeavesTheOldFile) {
  TempDir dir;
  write_token_file(dir / "t.bin", std::vector<int>{5});
  try {
    write_token_file(dir / "t.bin", std::vector<int>{1, 2, 65536});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "t.bin").string() + ": token 65536 at index 2 does not fit in uint16");
  }
  EXPECT_THROW(write_token_file(dir / "t.bin", std::vector<int>{-1}), std::runtime_error);
  EXPECT_EQ(read_token_file(dir / "t.bin"), std::vector<std::uint16_t>{5});
  EXPECT_FALSE(std::filesystem::exists(dir / "t.bin.tmp"));
}

TEST(TokenFile, UnwritableFolderIsAnError) {
  TempDir dir;
  EXPECT_THAT([&] {
    try {
      write_token_file(dir / "missing" / "t.bin", std::vector<int>{1});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }(), testing::HasSubstr("cannot write " + (dir / "missing" / "t.bin.tmp").string()));
}

TEST(TokenFile, BadFilesAreNamedErrors) {
  TempDir dir;
  const std::string file = (dir / "t.bin").string();
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": cannot open (No such file or directory)");
  EXPECT_EQ(read_error(dir.path()), dir.path().string() + ": is a directory");

  write_text(dir / "t.bin", "short");
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": too short for a token file (5 bytes, the header is 1024)");
  write_text(dir / "t.bin", token_file_bytes(12345, 1, 1, {7}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": not a token file (magic 12345, expected 20240520)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 2, 1, {7}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": unsupported token file version 2 (expected 1)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, -3, {}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": negative token count -3 in header");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 3, {7, 8}));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": the header says 3 tokens (1030 bytes) but the file has 1028 bytes (truncated)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 1, {7, 8}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": the header says 1 tokens (1026 bytes) but the file has 1028 bytes");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 2, {7, 8}).substr(0, 1027));
  EXPECT_THAT(read_error(dir / "t.bin"), testing::HasSubstr("(truncated)"));
}

}  // namespace
}  // namespace adjoint::test
