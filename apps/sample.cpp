// `adjoint sample`: text from a model, with temperature and top-k, on a KV cache. A model with
// another vocabulary than GPT-2's prints token ids, as `adjoint train`'s samples do.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "adjoint/llama_file.hpp"
#include "adjoint/sampler.hpp"
#include "adjoint/tokenizer.hpp"
#include "commands.hpp"
#include "generation.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

namespace {

struct Options {
  std::string model, prompt, bpe_dir;
  int tokens = 128, top_k = 40;
  float temperature = 1.0f;
  std::uint64_t seed = 1337;
};

bool is_llama_model(const std::string& spec) {
  return std::filesystem::exists(spec) ? file_magic(spec) == kLlamaFileMagic : is_llama_name(spec);
}

// Llama samples print token ids from <|begin_of_text|> (128000 in Llama 3's vocabulary, else 0)
// until the Llama tokenizer is wired in.
void sample_llama(const Options& opt) {
  std::unique_ptr<Llama> model;
  if (std::filesystem::exists(opt.model)) {
    model = load_llama(opt.model);
  } else {
    model = std::make_unique<Llama>(llama_config_from_name(opt.model));
    model->init_random(opt.seed);
  }
  const LlamaConfig& c = model->config();
  if (!opt.prompt.empty()) throw std::invalid_argument("--prompt needs the Llama 3 tokenizer, which is not wired in yet");
  if (1 + opt.tokens > c.max_seq_len) {
    throw std::invalid_argument("--tokens exceeds the model's " + std::to_string(c.max_seq_len) + " positions");
  }
  LlamaGenerator generator(*model, 1 + opt.tokens);
  Rng rng(opt.seed);
  const float* logits = generator.feed(c.vocab_size > 128000 ? 128000 : 0);
  for (int i = 0; i < opt.tokens; i++) {
    const int token = sample_token(logits, c.vocab_size, opt.temperature, opt.top_k, rng);
    std::printf("[%d]", token);
    std::fflush(stdout);
    if (i + 1 < opt.tokens) logits = generator.feed(token);
  }
  std::printf("\n");
}

}  // namespace

void add_sample_command(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("sample", "Generate text from a model");
  cmd->add_option("--model", opt->model, "Model file (GPT-2 or Llama 3) or config name (dN, llama-dN, ...)")->required();
  cmd->add_option("--prompt", opt->prompt, "Text to continue (default: start of a document); needs GPT-2's vocabulary");
  cmd->add_option("-n,--tokens", opt->tokens, "Tokens to generate")->check(CLI::NonNegativeNumber);
  cmd->add_option("--temperature", opt->temperature, "Softmax temperature (0 = greedy)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-k", opt->top_k, "Sample among the k most likely tokens (0 = all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", opt->seed, "Sampling seed");
  cmd->add_option("--bpe-dir", opt->bpe_dir, "Folder with encoder.json and vocab.bpe (default $ADJOINT_BPE_DIR)");
  cmd->callback([opt] {
    if (is_llama_model(opt->model)) {
      sample_llama(*opt);
      return;
    }
    auto model = make_model(opt->model, opt->seed);
    const GPT2Config& c = model->config();
    // A model with GPT-2's vocabulary speaks text; any other (a test's tiny one) token ids.
    std::unique_ptr<Tokenizer> tokenizer;
    if (c.vocab_size == gpt2_vocab_size) tokenizer = std::make_unique<Tokenizer>(Tokenizer::find_bpe_dir(opt->bpe_dir));
    TokenPrinter printer(c, tokenizer.get());
    if (!printer.prints_text() && !opt->prompt.empty()) {
      throw std::invalid_argument(fmt::format(
          "--prompt needs a model with GPT-2's {}-token vocabulary, and this one has {} tokens "
          "(without --prompt it prints sampled token ids)", gpt2_vocab_size, c.vocab_size));
    }
    std::vector<int> context{start_token(c)};
    if (tokenizer) {
      const std::vector<int> prompt = tokenizer->encode(opt->prompt);
      context.insert(context.end(), prompt.begin(), prompt.end());
    }
    if ((int)context.size() + opt->tokens > c.max_seq_len) {
      throw std::invalid_argument("prompt plus --tokens exceeds the model's " +
                                  std::to_string(c.max_seq_len) + " positions");
    }
    Rng rng(opt->seed);
    auto print = [](const std::string& text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    };
    print(opt->prompt);
    generate(*model, context, opt->tokens, {opt->temperature, opt->top_k}, rng,
             [&](int token) { print(printer.add(token)); });
    print(printer.finish() + "\n");
  });
}

}  // namespace adjoint::cli
