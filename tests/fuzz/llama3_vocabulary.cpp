// Llama 3's vocabulary file (llama3-tokenizer-js's src/data-converted.js: the 128000 ranked tokens'
// texts, "\n"-separated, base64 in a JavaScript string constant). The loader takes exactly 128000
// tokens, which no small input holds, so an input starting with a zero byte is a list of token
// texts ("\n"-separated, in GPT-2's byte alphabet) completed to 128000 with distinct filler tokens
// and written as the package writes it; any other input is the file itself. A vocabulary that
// loads encodes and decodes a short text.
#include <openssl/evp.h>

#include <cmath>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "adjoint/tokenizer.hpp"
#include "fuzz_support.hpp"

namespace {

// Byte b's character in GPT-2's byte alphabet, as UTF-8: the printable Latin-1 bytes stand for
// themselves, the other 68 for U+0100 onwards in byte order.
std::string alphabet_char(int b) {
  static const std::vector<int> code_points = [] {
    std::vector<int> map(256);
    int extra = 0;
    for (int byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || byte >= 0xAE;
      map[byte] = printable ? byte : 256 + extra++;
    }
    return map;
  }();
  const int c = code_points[b];
  if (c < 0x80) return std::string(1, char(c));
  return {char(0xC0 | (c >> 6)), char(0x80 | (c & 0x3F))};
}

// Distinct token texts: every single byte (so that any text can be encoded), then strings of two
// and three printable ASCII characters; twice the 128000 needed, so inputs cannot use them all up.
const std::vector<std::string>& filler_tokens() {
  static const std::vector<std::string> tokens = [] {
    const std::size_t wanted = 2 * adjoint::Llama3Tokenizer::num_ranked_tokens;
    std::vector<std::string> all;
    all.reserve(wanted);
    for (int b = 0; b < 256; ++b) all.push_back(alphabet_char(b));
    for (int length = 2; all.size() < wanted; ++length) {
      for (long n = 0; all.size() < wanted && n < std::lround(std::pow(94, length)); ++n) {
        std::string text;
        for (long rest = n; int(text.size()) < length; rest /= 94) text += char('!' + rest % 94);
        all.push_back(text);
      }
    }
    return all;
  }();
  return tokens;
}

// The fuzzer's tokens, then filler tokens it does not already have, up to 128000, as the file.
std::string completed_vocabulary_file(std::string_view listed) {
  std::vector<std::string_view> tokens;
  for (std::size_t begin = 0; begin <= listed.size();) {
    const std::size_t end = std::min(listed.find('\n', begin), listed.size());
    tokens.push_back(listed.substr(begin, end - begin));
    begin = end + 1;
  }
  const std::unordered_set<std::string_view> given(tokens.begin(), tokens.end());
  for (const std::string& filler : filler_tokens()) {
    if (tokens.size() >= adjoint::Llama3Tokenizer::num_ranked_tokens) break;
    if (!given.contains(filler)) tokens.push_back(filler);
  }
  std::string text;
  for (std::size_t i = 0; i < tokens.size(); ++i) (text += tokens[i]) += i + 1 < tokens.size() ? "\n" : "";
  std::string encoded(4 * ((text.size() + 2) / 3) + 1, '\0');
  encoded.resize(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                 reinterpret_cast<const unsigned char*>(text.data()), int(text.size())));
  return "const llama_vocab_base64 = \"" + encoded + "\";\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path package = adjoint::fuzz::work_dir() / "llama3-tokenizer-js";
  std::filesystem::create_directories(package / "src");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string file = size > 0 && data[0] == 0 ? completed_vocabulary_file(input.substr(1)) : std::string(input);
  adjoint::fuzz::write_file("llama3-tokenizer-js/src/data-converted.js",
                            reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
  try {
    const adjoint::Llama3Tokenizer tokenizer(package);
    tokenizer.decode(tokenizer.encode("the cat's 4242 caf\xc3\xa9s  \n<|begin_of_text|><|eot_id|>x"));
  } catch (const std::exception&) {
  }
  return 0;
}
