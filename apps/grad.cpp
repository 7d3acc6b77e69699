// `adjoint grad`: one forward/backward on a token file's first B*T+1 tokens; writes the
// parameter gradients as a model file, for comparison with other frameworks.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "adjoint/checkpoint.hpp"
#include "adjoint/dataloader.hpp"
#include "adjoint/llama.hpp"
#include "commands.hpp"
#include "engine.hpp"
#include "flags.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

void add_grad_command(CLI::App& app) {
  struct Options {
    std::string model, tokens, out, engine = "arrays", backward = "manual";
    int B = 1, T = 64;
    bool print_backward = false, lora = false;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("grad", "One forward/backward; write the gradients as a model file");
  cmd->add_option("--model", opt->model,
                  "Model file (GPT-2 or Llama 3), Hugging Face folder, or a config name (random weights)");
  cmd->add_option("--tokens", opt->tokens, "Token file (llm.c format)")->check(CLI::ExistingFile);
  cmd->add_option("-B,--batch", opt->B, "Batch size")->check(whole_number(1))->capture_default_str();
  cmd->add_option("-T,--seq-len", opt->T, "Sequence length")->check(whole_number(1))->capture_default_str();
  cmd->add_option("--out", opt->out, "Where to write the gradients (not the model file)");
  cmd->add_option("--engine", opt->engine, "arrays (kernels over arenas) or tensor (Tensor modules, backward by adjc)")
      ->check(CLI::IsMember({"arrays", "tensor"}))
      ->capture_default_str();
  CLI::Option* backward_option =
      cmd->add_option("--backward", opt->backward,
                      "Arrays engine's backward: manual (hand-written) or generated (by adjc)")
          ->check(CLI::IsMember({"manual", "generated"}))
          ->capture_default_str();
  CLI::Option* print_option =
      cmd->add_flag("--print-backward", opt->print_backward,
                    "Print the C++ adjc generated for the engine's backward of --model (a Llama config or file: "
                    "Llama's; otherwise GPT-2's) and exit");
  cmd->add_flag("--lora", opt->lora, "With --print-backward: the backward that trains LoRA adapters only")
      ->needs(print_option);
  cmd->callback([opt, backward_option] {
    const Engine engine = engine_from_name(opt->engine);
    check_backward_applies(engine, backward_option->count() > 0);
    if (opt->print_backward) {
      const bool llama = !opt->model.empty() && names_llama(opt->model);
      if (engine == Engine::tensor) {
        if (!nn::have_tensor_gradient())
          throw std::invalid_argument("this build has no adjc-generated tensor gradient");
        const std::string source =
            llama ? (opt->lora ? nn::llama_lora_tensor_gradient_source() : nn::llama_tensor_gradient_source())
                  : (opt->lora ? nn::gpt2_lora_tensor_gradient_source() : nn::tensor_gradient_source());
        std::fputs(source.c_str(), stdout);
        return;
      }
      if (!have_generated_backward()) throw std::invalid_argument("this build has no generated backward");
      const char* source =
          llama ? (opt->lora ? llama_lora_generated_backward_source() : llama_generated_backward_source())
                : (opt->lora ? gpt2_lora_generated_backward_source() : generated_backward_source());
      std::fputs(source, stdout);
      return;
    }
    if (opt->model.empty() || opt->tokens.empty() || opt->out.empty()) {
      throw std::invalid_argument("grad needs --model, --tokens and --out");
    }
    namespace fs = std::filesystem;
    for (const std::string& input : {opt->model, opt->tokens}) {
      if (fs::exists(opt->out) && fs::exists(input) && fs::equivalent(opt->out, input)) {
        throw std::invalid_argument("--out " + opt->out + " is an input file; the gradients would overwrite it");
      }
    }
    const Backward backward = backward_from_name(opt->backward);
    auto model = make_model(opt->model, 1);
    ForwardBackward forward_backward(*model, engine, backward);
    DataLoader loader(opt->tokens, opt->B, opt->T, model->vocab_size());
    loader.next_batch();
    const float loss = forward_backward(loader.inputs(), loader.targets(), opt->B, opt->T);
    model->save_file(opt->out, model->grads_memory());
    std::printf("loss %.9g\n", loss);
  });
}

}  // namespace adjoint::cli
