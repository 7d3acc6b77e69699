// `adjoint prepare`: tokenizes a text file with GPT-2's or Llama 3's BPE into DIR/val.bin (the
// first --val-fraction of the tokens) and DIR/train.bin (the rest), uint16 tokens for GPT-2 and
// uint32 for Llama 3. The tokens begin with the tokenizer's document token (<|endoftext|>,
// <|begin_of_text|>), so the text is one document as in each model's training data.
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/token_file.hpp"
#include "adjoint/tokenizer.hpp"
#include "commands.hpp"

namespace adjoint::cli {
namespace {

struct PrepareOptions {
  std::string text_file;
  std::string out_dir;
  double val_fraction = 0.1;
  std::string tokenizer = "gpt2";
  std::string bpe_dir;
  std::string llama3_dir;
};

struct Tokens {
  std::vector<int> ids;
  int vocab_size;
};

// The document token, then the text's tokens.
template <typename Tokenizer>
Tokens tokenize(const Tokenizer& tokenizer, int document_token, const std::string& text, const std::string& file) {
  Tokens tokens{{document_token}, tokenizer.vocab_size()};
  try {
    const std::vector<int> text_tokens = tokenizer.encode(text);
    tokens.ids.insert(tokens.ids.end(), text_tokens.begin(), text_tokens.end());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("{}: {}", file, e.what()));
  }
  return tokens;
}

Tokens tokenize(const PrepareOptions& options, const std::string& text) {
  if (options.tokenizer == "llama3")
    return tokenize(Llama3Tokenizer(Llama3Tokenizer::find_dir(options.llama3_dir)), Llama3Tokenizer::begin_of_text,
                    text, options.text_file);
  return tokenize(GPT2Tokenizer(GPT2Tokenizer::find_bpe_dir(options.bpe_dir)), GPT2Tokenizer::eot_token, text,
                  options.text_file);
}

void prepare(const PrepareOptions& options) {
  if (!(options.val_fraction > 0 && options.val_fraction < 1))
    throw std::runtime_error(fmt::format("--val-fraction {} is not between 0 and 1", options.val_fraction));
  const std::filesystem::path out_dir = options.out_dir;
  if (std::filesystem::exists(out_dir) && !std::filesystem::is_directory(out_dir))
    throw std::runtime_error(fmt::format("--out {} is not a folder", options.out_dir));

  const Tokens tokens = tokenize(options, read_file(options.text_file));
  const std::size_t count = tokens.ids.size();
  const auto val_count = static_cast<std::size_t>(options.val_fraction * static_cast<double>(count));
  if (val_count == 0 || val_count == count)
    throw std::runtime_error(fmt::format("{}: {} tokens are too few to split with --val-fraction {}",
                                         options.text_file, count, options.val_fraction));

  std::filesystem::create_directories(out_dir);
  const std::span<const int> all(tokens.ids);
  write_token_file(out_dir / "val.bin", all.first(val_count), tokens.vocab_size);
  write_token_file(out_dir / "train.bin", all.subspan(val_count), tokens.vocab_size);
  fmt::print("prepare: {} tokens from {}: {} has {}, {} has {}\n", count, options.text_file,
             (out_dir / "train.bin").string(), count - val_count, (out_dir / "val.bin").string(), val_count);
}

}  // namespace

void add_prepare_command(CLI::App& app) {
  auto options = std::make_shared<PrepareOptions>();
  CLI::App* command = app.add_subcommand(
      "prepare", "Tokenize a UTF-8 text file with GPT-2's or Llama 3's BPE into DIR/train.bin and DIR/val.bin");
  command->add_option("--text", options->text_file, "Text file to tokenize")->required()->type_name("FILE");
  command->add_option("--out", options->out_dir, "Folder for train.bin and val.bin (created if missing)")
      ->required()
      ->type_name("DIR");
  command
      ->add_option("--val-fraction", options->val_fraction,
                   "Fraction of the tokens, taken from the start of the text, that goes to val.bin")
      ->capture_default_str();
  command
      ->add_option("--tokenizer", options->tokenizer,
                   "gpt2 (uint16 token files) or llama3 (uint32 token files, Llama 3's 128256 tokens)")
      ->check(CLI::IsMember({"gpt2", "llama3"}))
      ->capture_default_str();
  command->add_option("--bpe-dir", options->bpe_dir,
                      "Folder with GPT-2's encoder.json and vocab.bpe (default: $ADJOINT_BPE_DIR)")
      ->type_name("DIR");
  command->add_option("--llama3-dir", options->llama3_dir,
                      "Folder of the npm package llama3-tokenizer-js (default: $ADJOINT_LLAMA3_DIR)")
      ->type_name("DIR");
  command->callback([options] { prepare(*options); });
}

}  // namespace adjoint::cli
