// `adjoint sample`: text from a model, with temperature and top-k, on a KV cache. A model with
// another vocabulary than GPT-2's prints token ids, as `adjoint train`'s samples do.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "adjoint/tokenizer.hpp"
#include "commands.hpp"
#include "flags.hpp"
#include "generation.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

void add_sample_command(CLI::App& app) {
  struct Options {
    std::string model, prompt, bpe_dir, llama3_dir;
    int tokens = 128, top_k = 40;
    float temperature = 1.0f;
    std::uint64_t seed = 1337;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("sample", "Generate text from a model");
  cmd->add_option("--model", opt->model, "Model file (GPT-2 or Llama 3), Hugging Face folder, or config name (dN, llama-dN, ...)")->required();
  cmd->add_option("--prompt", opt->prompt, "Text to continue (default: start of a document); needs GPT-2's or Llama 3's vocabulary");
  cmd->add_option("-n,--tokens", opt->tokens, "Tokens to generate")->check(whole_number(0))->capture_default_str();
  cmd->add_option("--temperature", opt->temperature, "Softmax temperature (0 = greedy)")
      ->check(real_number(0, INFINITY))->capture_default_str();
  cmd->add_option("--top-k", opt->top_k, "Sample among the k most likely tokens (0 = all)")
      ->check(whole_number(0))->capture_default_str();
  cmd->add_option("--seed", opt->seed, "Sampling seed")->capture_default_str();
  cmd->add_option("--bpe-dir", opt->bpe_dir, "Folder with encoder.json and vocab.bpe (default $ADJOINT_BPE_DIR, "
                                             "else the folder scripts/setup.sh fills)");
  cmd->add_option("--llama3-dir", opt->llama3_dir, "Folder of the npm package llama3-tokenizer-js (default "
                                                   "$ADJOINT_LLAMA3_DIR, else the folder scripts/setup.sh fills)");
  cmd->callback([opt] {
    auto model = make_model(opt->model, opt->seed);
    const int vocab_size = model->vocab_size();
    // A model with GPT-2's or Llama 3's vocabulary speaks text; any other (a test's tiny one) token ids.
    const std::unique_ptr<BytePairEncoding> tokenizer = tokenizer_for(vocab_size, opt->bpe_dir, opt->llama3_dir);
    TokenPrinter printer(vocab_size, tokenizer.get());
    if (!printer.prints_text() && !opt->prompt.empty()) {
      throw std::invalid_argument(fmt::format(
          "--prompt needs a model with GPT-2's {}-token or Llama 3's {}-token vocabulary, and this one has {} "
          "tokens (without --prompt it prints sampled token ids)", gpt2_vocab_size, llama3_vocab_size, vocab_size));
    }
    std::vector<int> context{model->start_token()};
    if (tokenizer) {
      const std::vector<int> prompt = tokenizer->encode(opt->prompt);
      context.insert(context.end(), prompt.begin(), prompt.end());
    }
    if ((int)context.size() + opt->tokens > model->max_seq_len()) {
      throw std::invalid_argument("prompt plus --tokens exceeds the model's " +
                                  std::to_string(model->max_seq_len()) + " positions");
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
