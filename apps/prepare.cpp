// `adjoint prepare`: tokenizes a text file with GPT-2's or Llama 3's BPE into DIR/val.bin (the
// first --val-fraction of the tokens) and DIR/train.bin (the rest), uint16 tokens for GPT-2 and
// uint32 for Llama 3. The tokens begin with the tokenizer's document token (<|endoftext|>,
// <|begin_of_text|>), so the text is one document as in each model's training data.
// With --instructions, a JSONL file of {"prompt", "response"} pairs becomes masked token files
// (adjoint/token_file.hpp) in which only the responses are learned.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/token_file.hpp"
#include "adjoint/tokenizer.hpp"
#include "commands.hpp"

namespace adjoint::cli {
namespace {

struct PrepareOptions {
  std::string text_file, instructions_file;
  std::string out_dir;
  double val_fraction = 0.1;
  std::string tokenizer = "gpt2";
  std::string bpe_dir;
  std::string llama3_dir;
};

struct Tokens {
  std::vector<int> ids;
  int vocab_size;
  std::vector<std::uint8_t> loss_mask;  // instruction data: 1 where a token is learned
};

// The document token, then the text's tokens.
template <typename Tokenizer>
Tokens tokenize(const Tokenizer& tokenizer, int document_token, const std::string& text, const std::string& file) {
  Tokens tokens{{document_token}, tokenizer.vocab_size(), {}};
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

// One prompt/response pair of an instruction file.
struct Example {
  std::string prompt, response;
};

// The pairs of a JSONL file: one object with string fields "prompt" and "response" per line
// (blank lines skipped); anything else is an error naming the file and line.
std::vector<Example> read_examples(const std::string& file) {
  std::istringstream lines(read_file(file));
  std::vector<Example> examples;
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    number++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto record = nlohmann::json::parse(line, nullptr, false);
    if (!record.is_object() || !record.contains("prompt") || !record["prompt"].is_string() ||
        !record.contains("response") || !record["response"].is_string())
      throw std::runtime_error(
          fmt::format("{}:{}: not a JSON object with string fields \"prompt\" and \"response\"", file, number));
    examples.push_back({record["prompt"].get<std::string>(), record["response"].get<std::string>()});
  }
  return examples;
}

std::string trimmed(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// Appends text's tokens to `tokens`, each with the mask byte `learned`.
template <typename Tokenizer>
void append(Tokens& tokens, const Tokenizer& tokenizer, const std::string& text, std::uint8_t learned) {
  for (const int token : tokenizer.encode(text)) {
    tokens.ids.push_back(token);
    tokens.loss_mask.push_back(learned);
  }
}

// An example as Llama 3's chat template renders a user turn and the assistant's answer (contents
// trimmed, as the template does); only the answer and its <|eot_id|> are learned. A prompt that
// contains a special token's text gets that token, as in Hugging Face's tokenizer.
void append_example(Tokens& tokens, const Llama3Tokenizer& tokenizer, const Example& example) {
  append(tokens, tokenizer,
         "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + trimmed(example.prompt) +
             "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
         0);
  append(tokens, tokenizer, trimmed(example.response) + "<|eot_id|>", 1);
}

// GPT-2 has no chat template: the prompt, a blank line, the response, then <|endoftext|>, which
// is learned (it ends the answer) and separates the example from the next.
void append_example(Tokens& tokens, const GPT2Tokenizer& tokenizer, const Example& example) {
  append(tokens, tokenizer, example.prompt + "\n\n", 0);
  append(tokens, tokenizer, example.response, 1);
  tokens.ids.push_back(GPT2Tokenizer::eot_token);
  tokens.loss_mask.push_back(1);
}

// The examples' tokens and loss mask, and where each example starts.
template <typename Tokenizer>
Tokens tokenize_examples(const Tokenizer& tokenizer, const std::vector<Example>& examples, const std::string& file,
                         std::vector<std::size_t>& starts) {
  Tokens tokens{{}, tokenizer.vocab_size(), {}};
  if constexpr (std::is_same_v<Tokenizer, GPT2Tokenizer>) {
    tokens.ids.push_back(GPT2Tokenizer::eot_token);  // the first example's document token
    tokens.loss_mask.push_back(0);
  }
  for (std::size_t i = 0; i < examples.size(); i++) {
    starts.push_back(tokens.ids.size());
    try {
      append_example(tokens, tokenizer, examples[i]);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: example {}: {}", file, i + 1, e.what()));
    }
  }
  return tokens;
}

// --instructions: the first --val-fraction of the examples to val.bin, the rest to train.bin.
void prepare_instructions(const PrepareOptions& options, const std::filesystem::path& out_dir) {
  const std::vector<Example> examples = read_examples(options.instructions_file);
  const auto val_examples = static_cast<std::size_t>(options.val_fraction * static_cast<double>(examples.size()));
  if (val_examples == 0 || val_examples == examples.size())
    throw std::runtime_error(fmt::format("{}: {} examples are too few to split with --val-fraction {}",
                                         options.instructions_file, examples.size(), options.val_fraction));
  std::vector<std::size_t> starts;
  const Tokens tokens = options.tokenizer == "llama3"
                            ? tokenize_examples(Llama3Tokenizer(Llama3Tokenizer::find_dir(options.llama3_dir)),
                                                examples, options.instructions_file, starts)
                            : tokenize_examples(GPT2Tokenizer(GPT2Tokenizer::find_bpe_dir(options.bpe_dir)), examples,
                                                options.instructions_file, starts);
  const std::size_t split = starts[val_examples];
  std::filesystem::create_directories(out_dir);
  const std::span<const int> ids(tokens.ids);
  const std::span<const std::uint8_t> mask(tokens.loss_mask);
  write_token_file(out_dir / "val.bin", ids.first(split), tokens.vocab_size, mask.first(split));
  write_token_file(out_dir / "train.bin", ids.subspan(split), tokens.vocab_size, mask.subspan(split));
  std::size_t learned = 0;
  for (const std::uint8_t byte : tokens.loss_mask) learned += byte;
  fmt::print("prepare: {} examples ({} tokens, {} learned) from {}: {} has {} examples, {} has {}\n", examples.size(),
             ids.size(), learned, options.instructions_file, (out_dir / "train.bin").string(),
             examples.size() - val_examples, (out_dir / "val.bin").string(), val_examples);
}

void prepare(const PrepareOptions& options) {
  if (!(options.val_fraction > 0 && options.val_fraction < 1))
    throw std::runtime_error(fmt::format("--val-fraction {} is not between 0 and 1", options.val_fraction));
  const std::filesystem::path out_dir = options.out_dir;
  if (std::filesystem::exists(out_dir) && !std::filesystem::is_directory(out_dir))
    throw std::runtime_error(fmt::format("--out {} is not a folder", options.out_dir));

  if (!options.instructions_file.empty()) return prepare_instructions(options, out_dir);

  const Tokens tokens = tokenize(options, read_file(options.text_file));
  const std::size_t count = tokens.ids.size();
  const auto val_count = static_cast<std::size_t>(options.val_fraction * static_cast<double>(count));
  if (val_count == 0 || val_count == count)
    throw std::runtime_error(fmt::format("{}: {} tokens are too few to split with --val-fraction {}", options.text_file,
                                         count, options.val_fraction));

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
  // One input: a text, or instruction pairs.
  CLI::Option_group* input = command->add_option_group("input");
  input->add_option("--text", options->text_file, "Text file to tokenize")->type_name("FILE");
  input
      ->add_option("--instructions", options->instructions_file,
                   "JSONL file of {\"prompt\": ..., \"response\": ...} pairs (Llama 3's chat template for "
                   "--tokenizer llama3): token files with a loss mask, only the responses learned")
      ->type_name("FILE");
  input->require_option(1);
  command->add_option("--out", options->out_dir, "Folder for train.bin and val.bin (created if missing)")
      ->required()
      ->type_name("DIR");
  command
      ->add_option(
          "--val-fraction", options->val_fraction,
          "Fraction of the tokens (with --instructions, of the examples), taken from the start, that goes to val.bin")
      ->capture_default_str();
  command
      ->add_option("--tokenizer", options->tokenizer,
                   "gpt2 (uint16 token files) or llama3 (uint32 token files, Llama 3's 128256 tokens)")
      ->check(CLI::IsMember({"gpt2", "llama3"}))
      ->capture_default_str();
  command
      ->add_option("--bpe-dir", options->bpe_dir,
                   "Folder with GPT-2's encoder.json and vocab.bpe (default: $ADJOINT_BPE_DIR)")
      ->type_name("DIR");
  command
      ->add_option("--llama3-dir", options->llama3_dir,
                   "Folder of the npm package llama3-tokenizer-js (default: $ADJOINT_LLAMA3_DIR)")
      ->type_name("DIR");
  command->callback([options] { prepare(*options); });
}

}  // namespace adjoint::cli
