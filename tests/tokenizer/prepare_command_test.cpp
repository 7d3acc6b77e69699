// `adjoint prepare`, run in process on its own CLI::App (the command's flags and callback).
#include <algorithm>

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
  ASSERT_EQ(run_prepare({"--text", (dir / "in.txt").string(), "--out", (dir / "data").string(), "--val-fraction",
                         "0.25", "--bpe-dir", bpe_dir().string()}),
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
  ASSERT_EQ(run_prepare({"--text", (dir / "in.txt").string(), "--out", (dir / "data").string(), "--tokenizer", "llama3",
                         "--llama3-dir", llama3_dir().string()}),
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
  EXPECT_THAT(run_prepare({"--out", out}), testing::HasSubstr("Exactly 1 option from [--text,--instructions]"));
  EXPECT_THAT(run_prepare({"--text", in, "--instructions", in, "--out", out}),
              testing::HasSubstr("Exactly 1 option from [--text,--instructions] is required and 2 were given"));
  EXPECT_THAT(run_prepare({"--text", in, "--out", out, "--tokenizer", "gpt3"}), testing::HasSubstr("gpt3 not in"));
  EXPECT_EQ(run_prepare({"--text", in, "--out", out, "--tokenizer", "llama3", "--llama3-dir", (dir / "no").string()}),
            (dir / "no" / "src" / "data-converted.js").string() + ": cannot open (No such file or directory)");
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));  // nothing written by a failed run
}

// Three examples in JSONL (with a blank line), the first one going to val.bin.
std::filesystem::path write_examples(const TempDir& dir) {
  write_text(dir / "pairs.jsonl", "{\"prompt\": \"What is 2+2?\", \"response\": \"4.\"}\n"
                                  "\n"
                                  "{\"prompt\": \"Name a colour.\", \"response\": \" Blue\", \"id\": 7}\n"
                                  "{\"response\": \"Thou art.\", \"prompt\": \"Speak as Hamlet \\u00e9\"}\n");
  return dir / "pairs.jsonl";
}

// Appends text's tokens and as many mask bytes `learned`.
void add(std::vector<int>& tokens, std::vector<std::uint8_t>& mask, const std::vector<int>& text, int learned) {
  tokens.insert(tokens.end(), text.begin(), text.end());
  mask.insert(mask.end(), text.size(), static_cast<std::uint8_t>(learned));
}

TEST(PrepareCommand, Gpt2InstructionsLearnOnlyTheResponses) {
  ADJOINT_REQUIRE_BPE();
  TempDir dir;
  ASSERT_EQ(run_prepare({"--instructions", write_examples(dir).string(), "--out", (dir / "data").string(),
                         "--val-fraction", "0.34", "--bpe-dir", bpe_dir().string()}),
            "");
  const int eot = GPT2Tokenizer::eot_token;
  std::vector<int> val, train;
  std::vector<std::uint8_t> val_mask, train_mask;
  add(val, val_mask, {eot}, 0);
  add(val, val_mask, gpt2().encode("What is 2+2?\n\n"), 0);
  add(val, val_mask, gpt2().encode("4."), 1);
  add(val, val_mask, {eot}, 1);
  add(train, train_mask, gpt2().encode("Name a colour.\n\n"), 0);
  add(train, train_mask, gpt2().encode(" Blue"), 1);
  add(train, train_mask, {eot}, 1);
  add(train, train_mask, gpt2().encode("Speak as Hamlet \xc3\xa9\n\n"), 0);
  add(train, train_mask, gpt2().encode("Thou art."), 1);
  add(train, train_mask, {eot}, 1);
  EXPECT_EQ(read_token_file(dir / "data" / "val.bin").tokens, val);
  EXPECT_EQ(read_token_file(dir / "data" / "val.bin").loss_mask, val_mask);
  EXPECT_EQ(read_token_file(dir / "data" / "train.bin").tokens, train);
  EXPECT_EQ(read_token_file(dir / "data" / "train.bin").loss_mask, train_mask);
}

// Llama 3's chat template, special tokens by id: the answer and its <|eot_id|> are learned.
TEST(PrepareCommand, Llama3InstructionsFollowTheChatTemplate) {
  ADJOINT_REQUIRE_LLAMA3();
  TempDir dir;
  ASSERT_EQ(run_prepare({"--instructions", write_examples(dir).string(), "--out", (dir / "data").string(),
                         "--val-fraction", "0.34", "--tokenizer", "llama3", "--llama3-dir", llama3_dir().string()}),
            "");
  const int begin_of_text = 128000, start_header = 128006, end_header = 128007, eot_id = 128009;
  std::vector<int> val;
  std::vector<std::uint8_t> mask;
  add(val, mask, {begin_of_text, start_header}, 0);
  add(val, mask, llama3().encode("user"), 0);
  add(val, mask, {end_header}, 0);
  add(val, mask, llama3().encode("\n\nWhat is 2+2?"), 0);
  add(val, mask, {eot_id, start_header}, 0);
  add(val, mask, llama3().encode("assistant"), 0);
  add(val, mask, {end_header}, 0);
  add(val, mask, llama3().encode("\n\n"), 0);
  add(val, mask, llama3().encode("4."), 1);
  add(val, mask, {eot_id}, 1);
  EXPECT_EQ(read_token_file(dir / "data" / "val.bin").tokens, val);
  EXPECT_EQ(read_token_file(dir / "data" / "val.bin").loss_mask, mask);
  const TokenFile train = read_token_file(dir / "data" / "train.bin");
  EXPECT_EQ(train.tokens.front(), begin_of_text);
  EXPECT_EQ(std::count(train.tokens.begin(), train.tokens.end(), begin_of_text), 2);
  // " Blue" is trimmed, as the template trims contents.
  const std::vector<int> blue = llama3().encode("Blue");
  EXPECT_NE(std::search(train.tokens.begin(), train.tokens.end(), blue.begin(), blue.end()), train.tokens.end());
}

TEST(PrepareCommand, BadInstructionsAreNamedErrors) {
  ADJOINT_REQUIRE_BPE();
  TempDir dir;
  const std::string bpe = bpe_dir().string(), file = (dir / "in.jsonl").string(), out = (dir / "out").string();
  const auto prepare_lines = [&](const std::string& text) {
    write_text(dir / "in.jsonl", text);
    return run_prepare({"--instructions", file, "--out", out, "--val-fraction", "0.5", "--bpe-dir", bpe});
  };
  const std::string good = "{\"prompt\": \"a\", \"response\": \"b\"}\n";
  const std::string not_a_pair = ": not a JSON object with string fields \"prompt\" and \"response\"";
  EXPECT_EQ(prepare_lines(good + "{\"prompt\": \"a\"\n"), file + ":2" + not_a_pair);   // not JSON
  EXPECT_EQ(prepare_lines(good + "{\"prompt\": \"a\"}\n"), file + ":2" + not_a_pair);  // no response
  EXPECT_EQ(prepare_lines("[1, 2]\n" + good), file + ":1" + not_a_pair);               // not an object
  EXPECT_EQ(prepare_lines(good + "{\"prompt\": 3, \"response\": \"b\"}\n"), file + ":2" + not_a_pair);
  EXPECT_EQ(prepare_lines(good), file + ": 1 examples are too few to split with --val-fraction 0.5");
  EXPECT_EQ(prepare_lines(""), file + ": 0 examples are too few to split with --val-fraction 0.5");
  EXPECT_EQ(prepare_lines(good + "{\"prompt\": \"caf\xe9\", \"response\": \"b\"}\n"),
            file + ":2" + not_a_pair);                 // not UTF-8: the JSON parser refuses it
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));  // nothing written by a failed run
}

}  // namespace
}  // namespace adjoint::test
