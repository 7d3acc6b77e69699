// Token files: llm.c's two layouts (uint16 and uint32 tokens), the masked layouts of instruction
// data, atomic writes, and one-line errors naming the file.
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

// The bytes of a token file with the given header fields, built by hand; Width is the token type.
template <typename Width>
std::string token_file_bytes(std::int32_t magic, std::int32_t version, std::int32_t count,
                             const std::vector<Width>& tokens) {
  std::int32_t header[256] = {magic, version, count};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof header);
  bytes.append(reinterpret_cast<const char*>(tokens.data()), tokens.size() * sizeof(Width));
  return bytes;
}

using U16 = std::vector<std::uint16_t>;
using U32 = std::vector<std::uint32_t>;

TEST(TokenFile, WidthFollowsTheVocabularySize) {
  EXPECT_EQ(token_file_format(50257).magic, 20240520);
  EXPECT_EQ(token_file_format(65536).bytes_per_token, 2);
  EXPECT_EQ(token_file_format(65537).magic, 20240801);
  EXPECT_EQ(token_file_format(128256).version, 7);
  EXPECT_EQ(token_file_format(128256).bytes_per_token, 4);
}

TEST(TokenFile, LayoutIsLlmCs) {
  TempDir dir;
  write_token_file(dir / "gpt2.bin", std::vector<int>{1, 65535, 0, 50256}, 65536);
  EXPECT_EQ(read_file(dir / "gpt2.bin"), token_file_bytes(20240520, 1, 4, U16{1, 65535, 0, 50256}));
  write_token_file(dir / "llama3.bin", std::vector<int>{128000, 65536, 0, 9906}, 128256);
  EXPECT_EQ(read_file(dir / "llama3.bin"), token_file_bytes(20240801, 7, 4, U32{128000, 65536, 0, 9906}));
  EXPECT_FALSE(std::filesystem::exists(dir / "gpt2.bin.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir / "llama3.bin.tmp"));
}

TEST(TokenFile, RoundTrips) {
  TempDir dir;
  for (const int vocab_size : {65536, 128256}) {
    std::vector<int> tokens(100000);
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int>((i * 7919) % vocab_size);
    write_token_file(dir / "t.bin", tokens, vocab_size);
    EXPECT_EQ(read_token_file(dir / "t.bin").tokens, tokens) << vocab_size;
    EXPECT_TRUE(read_token_file(dir / "t.bin").loss_mask.empty());
    std::vector<std::uint8_t> mask(tokens.size());
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (i / 3) % 2;
    write_token_file(dir / "t.bin", tokens, vocab_size, mask);
    EXPECT_EQ(read_token_file(dir / "t.bin").tokens, tokens) << vocab_size;
    EXPECT_EQ(read_token_file(dir / "t.bin").loss_mask, mask) << vocab_size;
    write_token_file(dir / "t.bin", std::vector<int>{}, vocab_size);  // replaces the file
    EXPECT_TRUE(read_token_file(dir / "t.bin").tokens.empty());
  }
}

TEST(TokenFile, TokenOutsideTheVocabularyLeavesTheOldFile) {
  TempDir dir;
  write_token_file(dir / "t.bin", std::vector<int>{5}, 50257);
  try {
    write_token_file(dir / "t.bin", std::vector<int>{1, 2, 50257}, 50257);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "t.bin").string() + ": token 50257 at index 2 is outside the vocabulary [0, 50257)");
  }
  EXPECT_THROW(write_token_file(dir / "t.bin", std::vector<int>{-1}, 128256), std::runtime_error);
  EXPECT_THROW(write_token_file(dir / "t.bin", std::vector<int>{128256}, 128256), std::runtime_error);
  EXPECT_THROW(write_token_file(dir / "t.bin", std::vector<int>{0}, 0), std::runtime_error);
  EXPECT_EQ(read_token_file(dir / "t.bin").tokens, std::vector<int>{5});
  EXPECT_FALSE(std::filesystem::exists(dir / "t.bin.tmp"));
}

// The tokens, then one mask byte per token; the magic and version say so.
TEST(TokenFile, MaskedLayout) {
  TempDir dir;
  write_token_file(dir / "m.bin", std::vector<int>{1, 50256, 0}, 50257, std::vector<std::uint8_t>{0, 1, 1});
  EXPECT_EQ(read_file(dir / "m.bin"), token_file_bytes(20241129, 1, 3, U16{1, 50256, 0}) + std::string("\0\1\1", 3));
  write_token_file(dir / "m.bin", std::vector<int>{128000, 7}, 128256, std::vector<std::uint8_t>{0, 1});
  EXPECT_EQ(read_file(dir / "m.bin"), token_file_bytes(20241129, 2, 2, U32{128000, 7}) + std::string("\0\1", 2));
  // A mask of another length, or a byte other than 0 and 1, is refused and leaves the file.
  EXPECT_THROW(write_token_file(dir / "m.bin", std::vector<int>{1, 2}, 50257, std::vector<std::uint8_t>{1}),
               std::runtime_error);
  try {
    write_token_file(dir / "m.bin", std::vector<int>{1, 2}, 50257, std::vector<std::uint8_t>{1, 2});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "m.bin").string() + ": loss mask byte 2 at index 1 is not 0 or 1");
  }
  EXPECT_EQ(read_token_file(dir / "m.bin").tokens, (std::vector<int>{128000, 7}));
}

TEST(TokenFile, UnwritableFolderIsAnError) {
  TempDir dir;
  EXPECT_THAT(
      [&] {
        try {
          write_token_file(dir / "missing" / "t.bin", std::vector<int>{1}, 50257);
        } catch (const std::runtime_error& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      }(),
      testing::HasSubstr("cannot write " + (dir / "missing" / "t.bin.tmp").string()));
}

TEST(TokenFile, BadFilesAreNamedErrors) {
  TempDir dir;
  const std::string file = (dir / "t.bin").string();
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": cannot open (No such file or directory)");
  EXPECT_EQ(read_error(dir.path()), dir.path().string() + ": is a directory");

  write_text(dir / "t.bin", "short");
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": too short for a token file (5 bytes, the header is 1024)");
  write_text(dir / "t.bin", token_file_bytes(12345, 1, 1, U16{7}));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": not a token file (magic 12345, expected 20240520 for uint16 tokens, 20240801 for uint32 or "
                   "20241129 for tokens with a loss mask)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 2, 1, U16{7}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": unsupported token file version 2 for magic 20240520 (expected 1)");
  write_text(dir / "t.bin", token_file_bytes(20240801, 1, 1, U32{7}));  // uint32 magic, uint16 version
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": unsupported token file version 1 for magic 20240801 (expected 7)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, -3, U16{}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": negative token count -3 in header");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 3, U16{7, 8}));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": the header says 3 tokens of 2 bytes (1030 bytes in all) but the file has 1028 bytes (truncated)");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 1, U16{7, 8}));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": the header says 1 tokens of 2 bytes (1026 bytes in all) but the file has 1028 bytes");
  write_text(dir / "t.bin", token_file_bytes(20240520, 1, 2, U16{7, 8}).substr(0, 1027));
  EXPECT_THAT(read_error(dir / "t.bin"), testing::HasSubstr("(truncated)"));

  // The header's width decides: 2 uint32 tokens are 4 uint16 tokens' bytes, not a valid uint32 file of 4.
  write_text(dir / "t.bin", token_file_bytes(20240801, 7, 4, U32{7, 8}));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": the header says 4 tokens of 4 bytes (1040 bytes in all) but the file has 1032 bytes (truncated)");
  write_text(dir / "t.bin", token_file_bytes(20240801, 7, 2, U32{7, 8}).substr(0, 1030));
  EXPECT_THAT(read_error(dir / "t.bin"), testing::HasSubstr("(truncated)"));
  write_text(dir / "t.bin", token_file_bytes(20240801, 7, 2, U32{7, 0x80000000u}));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": token 2147483648 at index 1 is over 2147483647");

  // Masked files: the mask's bytes count in the size, and each must be 0 or 1.
  write_text(dir / "t.bin", token_file_bytes(20241129, 3, 1, U16{7}) + std::string("\1", 1));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": unsupported token file version 3 for magic 20241129 (expected 1 or 2)");
  write_text(dir / "t.bin", token_file_bytes(20241129, 1, 2, U16{7, 8}) + std::string("\1", 1));
  EXPECT_EQ(read_error(dir / "t.bin"),
            file + ": the header says 2 tokens of 3 bytes (1030 bytes in all) but the file has 1029 bytes (truncated)");
  write_text(dir / "t.bin", token_file_bytes(20241129, 2, 2, U32{7, 8}) + std::string("\1\7", 2));
  EXPECT_EQ(read_error(dir / "t.bin"), file + ": loss mask byte 7 at index 1 is not 0 or 1");
}

}  // namespace
}  // namespace adjoint::test
