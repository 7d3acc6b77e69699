// Llama 3's tokenizer against hand-worked splits, known ids, and llama3-tokenizer-js (token for
// token on tinyshakespeare, edge_cases.txt, random text, special tokens and words where two merges
// make the same token; decoding too).
#include <algorithm>
#include <unordered_set>

#include "adjoint/token_file.hpp"
#include "test_support.hpp"

namespace adjoint::test {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(Pretokenize, FollowsLlama3Regex) {
  EXPECT_EQ(pretokenize_llama3(""), Pieces{});
  EXPECT_EQ(pretokenize_llama3("Hello world's  123"), (Pieces{"Hello", " world", "'s", " ", " ", "123"}));
  // Contractions in either case; "'" then other letters is one piece, a space then "'" another.
  EXPECT_EQ(pretokenize_llama3("I'M HE'LLo we'Re'rx 'em"),
            (Pieces{"I", "'M", " HE", "'LL", "o", " we", "'Re", "'rx", " '", "em"}));
  // Digits go in threes.
  EXPECT_EQ(pretokenize_llama3("12345 x1234y"), (Pieces{"123", "45", " x", "123", "4", "y"}));
  // Any one character but a line break, letter or digit joins the letters after it: tab, NBSP, "(".
  EXPECT_EQ(pretokenize_llama3("a\tb(c\xc2\xa0" "d\ne 1f (g"),
            (Pieces{"a", "\tb", "(c", "\xc2\xa0" "d", "\n", "e", " ", "1", "f", " (", "g"}));
  // Punctuation takes one leading space and the line breaks after it.
  EXPECT_EQ(pretokenize_llama3("end.\n\nNext ,.b"), (Pieces{"end", ".\n\n", "Next", " ,.", "b"}));
  // Whitespace with line breaks ends at the last line break; other whitespace gives up its last
  // character to a following word unless it is one character long or ends the text.
  EXPECT_EQ(pretokenize_llama3("a \n\n b"), (Pieces{"a", " \n\n", " b"}));
  EXPECT_EQ(pretokenize_llama3("a   b  "), (Pieces{"a", "  ", " b", "  "}));
  EXPECT_EQ(pretokenize_llama3("x\r\n\r\n"), (Pieces{"x", "\r\n\r\n"}));
  EXPECT_EQ(pretokenize_llama3(" \t1"), (Pieces{" ", "\t", "1"}));
  // Non-ASCII: a combining mark is "other"; CJK are letters.
  EXPECT_EQ(pretokenize_llama3("cafe\xcc\x81!"), (Pieces{"cafe", "\xcc\x81!"}));
  EXPECT_EQ(pretokenize_llama3("\xe6\x97\xa5\xe6\x9c\xac 42"), (Pieces{"\xe6\x97\xa5\xe6\x9c\xac", " ", "42"}));
  EXPECT_THROW(pretokenize_llama3("ok \xff"), std::invalid_argument);
}

TEST(Llama3Tokenizer, KnownTokens) {
  ADJOINT_REQUIRE_LLAMA3();
  const Llama3Tokenizer& tokenizer = llama3();
  EXPECT_EQ(tokenizer.vocab_size(), 128256);
  EXPECT_EQ(tokenizer.encode("This is a test sentence."), (std::vector<int>{2028, 374, 264, 1296, 11914, 13}));
  EXPECT_EQ(tokenizer.encode("grabbed"), (std::vector<int>{59312, 2788}));
  EXPECT_EQ(tokenizer.encode(" grabbed"), std::vector<int>{30418});
  EXPECT_EQ(tokenizer.encode(" \n"), std::vector<int>{720});
  EXPECT_EQ(tokenizer.encode(""), std::vector<int>{});
  EXPECT_EQ(tokenizer.encode("<|start_header_id|>This text has special tokens<|eom_id|> in the middle of it."
                             "<|end_header_id|><|eot_id|>"),
            (std::vector<int>{128006, 2028, 1495, 706, 3361, 11460, 128008, 304, 279, 6278, 315, 433, 13, 128007,
                              128009}));
  EXPECT_EQ(tokenizer.decode(std::vector<int>{128000, 2028, 374, 264, 1296, 11914, 13, 128001}),
            "<|begin_of_text|>This is a test sentence.<|end_of_text|>");
  EXPECT_THROW(tokenizer.decode_token(128256), std::out_of_range);
  EXPECT_THROW(tokenizer.decode_token(-1), std::out_of_range);
  // Invalid UTF-8 is named by its offset in the whole text, also after a special token.
  try {
    tokenizer.encode("<|eot_id|>ok \xff");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "text is not valid UTF-8 at byte 13");
  }
}

TEST(Llama3Tokenizer, SpecialTokensHaveMetasIds) {
  EXPECT_EQ(Llama3Tokenizer::special_token_text(Llama3Tokenizer::begin_of_text), "<|begin_of_text|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(Llama3Tokenizer::end_of_text), "<|end_of_text|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128002), "<|reserved_special_token_0|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128004), "<|finetune_right_pad_id|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128006), "<|start_header_id|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128007), "<|end_header_id|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128008), "<|eom_id|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128009), "<|eot_id|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128010), "<|python_tag|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128011), "<|reserved_special_token_3|>");
  EXPECT_EQ(Llama3Tokenizer::special_token_text(128255), "<|reserved_special_token_247|>");
  EXPECT_THROW(Llama3Tokenizer::special_token_text(127999), std::out_of_range);
  EXPECT_THROW(Llama3Tokenizer::special_token_text(128256), std::out_of_range);
}

// Encodes `text` with ours and the reference, and checks that both agree and decode gives it back.
void expect_reference_tokens(const std::string& text, const std::string& name) {
  TempDir dir;
  write_text(dir / name, text);
  const std::vector<int> tokens = llama3().encode(text);
  expect_same_tokens(llama3(), tokens, reference_llama3_tokens(dir / name));
  EXPECT_EQ(llama3().decode(tokens), text);
}

TEST(Llama3Tokenizer, MatchesJavaScriptEncoderOnShakespeare) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_SHAKESPEARE();
  ADJOINT_REQUIRE_NODE();
  const std::string text = read_file(shakespeare_file());
  const std::vector<int> tokens = llama3().encode(text);
  EXPECT_LT(tokens.size(), text.size() / 3);  // BPE merged most bytes
  expect_same_tokens(llama3(), tokens, reference_llama3_tokens(shakespeare_file()));
  EXPECT_EQ(llama3().decode(tokens), text);
}

TEST(Llama3Tokenizer, MatchesJavaScriptEncoderOnEdgeCases) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  expect_reference_tokens(read_file(std::filesystem::path(ADJOINT_TOKENIZER_TEST_DIR) / "edge_cases.txt"),
                          "edge_cases.txt");
}

// Random text from pieces that stress the regex, the merges and special tokens: letters and
// contractions in both cases, digit runs, whitespace of every kind and line breaks, marks, CJK,
// emoji (with joiners and modifiers), special tokens and text that only looks like one.
TEST(Llama3Tokenizer, MatchesJavaScriptEncoderOnRandomText) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  const std::vector<std::string> alphabet = {
      "a", "e", "Z", "the", "THE", "ing", "Llama", "0", "7", "42", "1234567", "\xd9\xa3", " ", " ", "  ", "\t",
      "\n", "\n\n", "\r\n", "\r", "\xc2\xa0", "\xe3\x80\x80", "\xef\xbb\xbf", "\xe2\x80\xa8", "\xc2\x85", "\x0b",
      "'", "'s", "'S", "'LL", "'Re", "'VE", "'d", "'M", "'T", ",", ".", "\"", "(", ")", "{", "-", "!", "?", "...",
      "\xcc\x81", "\xc3\xa9", "\xe2\x80\x99", "\xe6\x97\xa5", "\xe6\x9c\xac\xe8\xaa\x9e", "\xed\x95\x9c",
      "\xf0\x9f\x98\x80", "\xf0\x9f\xa6\x99", "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd", "\xe2\x80\x8d",
      "\xf0\x9d\x94\x98", "\xc2\xbd", "<|eot_id|>", "<|begin_of_text|>", "<|reserved_special_token_247|>",
      "<|reserved_special_token_248|>", "<|", "|>", "<|eot_id", "<|EOT_ID|>"};
  std::mt19937 random(20240801);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string text;
  while (text.size() < 200000) text += alphabet[pick(random)];
  expect_reference_tokens(text, "random.txt");
}

// Every special token, and text that looks like one but is not, as llama3-tokenizer-js's own
// tests have it.
TEST(Llama3Tokenizer, MatchesJavaScriptEncoderOnSpecialTokens) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  std::string text;
  for (int token = Llama3Tokenizer::begin_of_text; token < llama3().vocab_size(); ++token)
    text += Llama3Tokenizer::special_token_text(token) + (token % 3 == 0 ? " x" : token % 3 == 1 ? "\n" : "");
  for (const char* lookalike : {"<|reserved_special_token_00|>", "<|reserved_special_token_010|>",
                                "<|reserved_special_token_250|>", "<||>", "<|eot_id|", "<<|eot_id|>>",
                                "<|<|eot_id|>|>", "<|begin_of_text |>"})
    text += std::string(lookalike) + " ";
  expect_reference_tokens(text, "special.txt");
}

// Where two merges make the same token from overlapping pairs ("at" "a" "ta" -> "ata" "ta" or
// "at" "ata"), tiktoken joins the leftmost and the reference the pair whose parts rank lower. These
// are all such words of the vocabulary, alone and after a space.
TEST(Llama3Tokenizer, MatchesJavaScriptEncoderWhereTwoMergesMakeOneToken) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  const Llama3Tokenizer& tokenizer = llama3();
  std::unordered_set<std::string_view> tokens;
  for (int id = 0; id < Llama3Tokenizer::num_ranked_tokens; ++id) tokens.insert(tokenizer.decode_token(id));
  std::string text;
  int words = 0;
  for (int id = 0; id < Llama3Tokenizer::num_ranked_tokens; ++id) {
    const std::string_view token = tokenizer.decode_token(id);
    for (std::size_t overlap = 1; overlap < token.size(); ++overlap) {
      const std::string_view left = token.substr(0, token.size() - overlap), right = token.substr(overlap);
      if (token.substr(0, overlap) != token.substr(token.size() - overlap) || left == right ||
          !tokens.contains(left) || !tokens.contains(token.substr(0, overlap)) || !tokens.contains(right))
        continue;
      const std::string word = std::string(token) + std::string(right);  // left, overlap, right
      if (replace_invalid_utf8(word) != word) continue;
      text += word + "\n " + word + "\n";
      ++words;
    }
  }
  EXPECT_GT(words, 300);
  expect_reference_tokens(text, "overlaps.txt");
}

// A piece that is a token is that token, although for 588 tokens (" jeho", "lardan", ...) BPE
// would stop short of it: every token that is valid UTF-8 and one piece, one per line.
TEST(Llama3Tokenizer, MatchesJavaScriptEncoderOnEveryTokenThatIsAPiece) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  std::string text;
  int pieces = 0;
  for (int id = 0; id < Llama3Tokenizer::num_ranked_tokens; ++id) {
    const std::string token(llama3().decode_token(id));
    if (replace_invalid_utf8(token) != token || pretokenize_llama3(token) != Pieces{token}) continue;
    ASSERT_EQ(llama3().encode(token), std::vector<int>{id}) << token;
    text += token + "\n";
    ++pieces;
  }
  EXPECT_GT(pieces, 100000);
  expect_reference_tokens(text, "tokens.txt");
}

// Random token ids, special ones and single bytes that cut UTF-8 sequences among them, decode to
// the reference's text once invalid UTF-8 is replaced as JavaScript's TextDecoder does.
TEST(Llama3Tokenizer, DecodesAsJavaScriptDecoder) {
  ADJOINT_REQUIRE_LLAMA3();
  ADJOINT_REQUIRE_NODE();
  std::mt19937 random(7);
  std::uniform_int_distribution<int> any_token(0, llama3().vocab_size() - 1), byte_token(128, 255);
  std::vector<int> ids(20000);
  for (int& id : ids) id = random() % 4 == 0 ? byte_token(random) : any_token(random);
  std::string listed;
  for (const int id : ids) listed += std::to_string(id) + " ";
  TempDir dir;
  write_text(dir / "ids.txt", listed);
  EXPECT_EQ(replace_invalid_utf8(llama3().decode(ids)), reference_llama3_text(dir / "ids.txt"));
}

std::string load_error(const std::filesystem::path& dir) { return tokenizer_load_error<Llama3Tokenizer>(dir); }

// A package folder whose src/data-converted.js defines the vocabulary as `base64`.
std::filesystem::path package_with(const TempDir& dir, const std::string& base64) {
  std::filesystem::create_directories(dir / "src");
  write_text(dir / "src" / "data-converted.js", "const llama_vocab_base64 = \"" + base64 + "\";\n");
  return dir.path();
}

TEST(Llama3Tokenizer, MissingOrCorruptVocabularyIsNamed) {
  TempDir dir;
  const std::string file = (dir / "src" / "data-converted.js").string();
  EXPECT_EQ(load_error(dir.path()), file + ": cannot open (No such file or directory)");
  std::filesystem::create_directories(dir / "src");
  write_text(dir / "src" / "data-converted.js", "const other = \"YQ==\";\n");
  EXPECT_EQ(load_error(dir.path()), file + ": no string constant llama_vocab_base64");
  EXPECT_EQ(load_error(package_with(dir, "YQ=")), file + ": llama_vocab_base64 is not base64");
  EXPECT_EQ(load_error(package_with(dir, "Y*==")), file + ": llama_vocab_base64 is not base64");
  const std::string not_in_alphabet = file + ": token 1 is not a text in GPT-2's byte alphabet";
  EXPECT_EQ(load_error(package_with(dir, "YQpiCmM=")), file + ": the vocabulary has 3 tokens, expected 128000");
  EXPECT_EQ(load_error(package_with(dir, "YQoKYw==")), not_in_alphabet);  // "a", "", "c"
  EXPECT_EQ(load_error(package_with(dir, "YQogYw==")), not_in_alphabet);  // "a", " " (not in the alphabet), "c"
}

TEST(Llama3Tokenizer, RepeatedOrMissingTokensAreNamed) {
  ADJOINT_REQUIRE_LLAMA3();
  const std::string source = read_file(llama3_dir() / "src" / "data-converted.js");
  // The real vocabulary with token 1 ("\"") made a copy of token 0 ("!"): then byte 0x22 has no token.
  const std::string opening = "const llama_vocab_base64 = \"";
  const std::size_t begin = source.find(opening) + opening.size();
  ASSERT_EQ(source.substr(begin, 4), "IQoi");  // "!\n\""
  TempDir dir;
  std::filesystem::create_directories(dir / "src");
  write_text(dir / "src" / "data-converted.js", source.substr(0, begin) + "IQoh" + source.substr(begin + 4));
  EXPECT_EQ(load_error(dir.path()), (dir / "src" / "data-converted.js").string() + ": no token for byte 34");
}

TEST(Llama3Tokenizer, FindsItsFolder) {
  expect_folder_found(Llama3Tokenizer::find_dir, "ADJOINT_LLAMA3_DIR", "llama3-tokenizer-js", "src/data-converted.js");
}

}  // namespace
}  // namespace adjoint::test
