// `adjoint sample`: text from a model, with temperature and top-k, on a KV cache.
#include <cstdio>
#include <string>

#include "adjoint/sampler.hpp"
#include "adjoint/tokenizer.hpp"
#include "commands.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

void add_sample_command(CLI::App& app) {
  struct Options {
    std::string model, prompt, bpe_dir;
    int tokens = 128, top_k = 40;
    float temperature = 1.0f;
    std::uint64_t seed = 1337;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("sample", "Generate text from a model");
  cmd->add_option("--model", opt->model, "Model file or config name")->required();
  cmd->add_option("--prompt", opt->prompt, "Text to continue (default: start of a document)");
  cmd->add_option("-n,--tokens", opt->tokens, "Tokens to generate")->check(CLI::NonNegativeNumber);
  cmd->add_option("--temperature", opt->temperature, "Softmax temperature (0 = greedy)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--top-k", opt->top_k, "Sample among the k most likely tokens (0 = all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", opt->seed, "Sampling seed");
  cmd->add_option("--bpe-dir", opt->bpe_dir, "Folder with encoder.json and vocab.bpe (default $ADJOINT_BPE_DIR)");
  cmd->callback([opt] {
    auto model = make_model(opt->model, opt->seed);
    const Tokenizer tokenizer(Tokenizer::find_bpe_dir(opt->bpe_dir));
    std::vector<int> prompt = tokenizer.encode(opt->prompt);
    prompt.insert(prompt.begin(), Tokenizer::eot_token);
    const GPT2Config& c = model->config();
    if ((int)prompt.size() + opt->tokens > c.max_seq_len) {
      throw std::invalid_argument("prompt plus --tokens exceeds the model's " +
                                  std::to_string(c.max_seq_len) + " positions");
    }
    Generator generator(*model);
    Rng rng(opt->seed);
    const float* logits = nullptr;
    for (int token : prompt) logits = generator.feed(token);
    std::fputs(opt->prompt.c_str(), stdout);
    // Tokens can end inside a character: print up to the last complete one, keep the rest.
    std::string pending;
    auto print = [](const std::string& bytes) {
      const std::string text = replace_invalid_utf8(bytes);
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    };
    for (int i = 0; i < opt->tokens; i++) {
      const int token = sample_token(logits, c.vocab_size, opt->temperature, opt->top_k, rng);
      pending += tokenizer.decode_token(token);
      const std::size_t complete = utf8_complete_prefix(pending);
      print(pending.substr(0, complete));
      pending.erase(0, complete);
      if (i + 1 < opt->tokens) logits = generator.feed(token);
    }
    print(pending);
    std::fputc('\n', stdout);
  });
}

}  // namespace adjoint::cli
