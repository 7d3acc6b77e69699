// `adjoint prepare`, run in process on its own CLI::App (the command's flags and callback).
#include "../../apps/commands.hpp"
#include "adjoint/token_file.hpp"
#include "test_support.hpp"

namespace adjoint::test {
namespace {

// Parses `adjoint prepare <arguments>` and runs it; returns the error, or "" on success.
std::string run_prepare(std::vector<std::string> arguments) {
  CLI::App app;
  cli::add_prepare_command(app);
  arguments.insert(arguments.begin(), {"adjoint", "prepare"});
  std::vector<const char*> argv;
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(PrepareCommand, SplitsTokensIntoValThenTrain) {
  ADJOINT_REQUIRE_BPE();
  TempDir dir;
  const std::string text = read_file(std::filesystem::path(ADJOINT_TOKENIZER_TEST_DIR) / "edge_cases.txt");
  write_text(dir / "in.txt", text);
  ASSERT_EQ(run_prepare({"--text", (dir / "in.txt").string(), "--out", (dir / "data").string(),
                         "--val-fraction", "0.25", "--bpe-dir", bpe_dir().string()}),
            "");
  std::vector<int> expected{GPT2Tokenizer::eot_token};
  for (const int token : gpt2().encode(text)) expected.push_back(token);

  const std::vector<int> val = read_token_file(dir / "data" / "val.bin").tokens;
  const std::vector<int> train = read_token_file(dir / "data" / "train.bin").tokens;
  EXPECT_EQ(val.size(), expected.size() / 4);
  std::vector<int> both = val;
  both.insert(both.end(), train.begin(), train.end());
  EXPECT_EQ(both, expected);
}

TEST(PrepareCommand, Llama3WritesUint32Files) {
  ADJOINT_REQUIRE_LLAMA3();
  TempDir dir;
  const std::string text = read_file(std::filesystem::path(ADJOINT_TOKENIZER_TEST_DIR) / "edge_cases.txt");
  write_text(dir / "in.txt", text);
  ASSERT_EQ(run_prepare({"--text", (dir / "in.txt").string(), "--out", (dir / "data").string(), "--tokenizer",
                         "llama3", "--llama3-dir", llama3_dir().string()}),
            "");
  std::vector<int> expected{Llama3Tokenizer::begin_of_text};
  for (const int token : llama3().encode(text)) expected.push_back(token);

  const std::string val_bytes = read_file(dir / "data" / "val.bin");
  ASSERT_GE(val_bytes.size(), 8u);
  EXPECT_EQ(val_bytes.substr(0, 8), std::string("\xa1\xd9\x34\x01\x07\0\0\0", 8));  // 20240801, 7
  std::vector<int> both = read_token_file(dir / "data" / "val.bin").tokens;
  EXPECT_EQ(both.size(), expected.size() / 10);
  EXPECT_EQ(val_bytes.size(), 1024 + 4 * both.size());
  const std::vector<int> train = read_token_file(dir / "data" / "train.bin").tokens;
  both.insert(both.end(), train.begin(), train.end());
  EXPECT_EQ(both, expected);
}

TEST(PrepareCommand, BadInputIsAnError) {
  ADJOINT_REQUIRE_BPE();
  TempDir dir;
  const std::string bpe = bpe_dir().string(), in = (dir / "in.txt").string(), out = (dir / "out").string();
  write_text(dir / "in.txt", "Some text to split into two token files.");

  EXPECT_EQ(run_prepare({"--text", (dir / "none.txt").string(), "--out", out, "--bpe-dir", bpe}),
            (dir / "none.txt").string() + ": cannot open (No such file or directory)");
  EXPECT_EQ(run_prepare({"--text", in, "--out", out, "--val-fraction", "1", "--bpe-dir", bpe}),
            "--val-fraction 1 is not between 0 and 1");
  EXPECT_EQ(run_prepare({"--text", in, "--out", out, "--val-fraction", "0", "--bpe-dir", bpe}),
            "--val-fraction 0 is not between 0 and 1");
  EXPECT_EQ(run_prepare({"--text", in, "--out", out, "--val-fraction", "0.01", "--bpe-dir", bpe}),
            in + ": 10 tokens are too few to split with --val-fraction 0.01");
  EXPECT_EQ(run_prepare({"--text", in, "--out", in, "--bpe-dir", bpe}), "--out " + in + " is not a folder");
  EXPECT_THAT(run_prepare({"--text", in, "--out", out, "--bpe-dir", (dir / "nobpe").string()}),
              testing::HasSubstr("encoder.json: cannot open"));
  write_text(dir / "bad.txt", "caf\xe9");  // Latin-1, not UTF-8
  EXPECT_EQ(run_prepare({"--text", (dir / "bad.txt").string(), "--out", out, "--bpe-dir", bpe}),
            (dir / "bad.txt").string() + ": text is not valid UTF-8 at byte 3");
  EXPECT_THAT(run_prepare({"--out", out}), testing::HasSubstr("--text is required"));
  EXPECT_THAT(run_prepare({"--text", in, "--out", out, "--tokenizer", "gpt3"}), testing::HasSubstr("gpt3 not in"));
  EXPECT_EQ(run_prepare({"--text", in, "--out", out, "--tokenizer", "llama3", "--llama3-dir", (dir / "no").string()}),
            (dir / "no" / "src" / "data-converted.js").string() + ": cannot open (No such file or directory)");
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));  // nothing written by a failed run
}

}  // namespace
}  // namespace adjoint::test
