// LoRA on the command line (lora.hpp) and `adjoint merge`: a base with adapters written as one model.
#include "lora.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "adjoint/llama.hpp"
#include "adjoint/lora.hpp"
#include "commands.hpp"
#include "flags.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

void add_lora_flags(CLI::App& cmd, LoraFlags& flags) {
  auto given = [&flags](const std::string&) { flags.given = true; };
  cmd.add_option("--lora-rank", flags.rank, "Train LoRA adapters of this rank on a frozen base")
      ->check(whole_number(1, 65536))
      ->each(given);
  cmd.add_option("--lora-alpha", flags.alpha, "LoRA's alpha: the adapters' output is scaled by alpha / rank")
      ->check(real_number(0, INFINITY, true))
      ->capture_default_str()
      ->each(given);
  cmd.add_option("--lora-targets", flags.targets,
                 "Projections to adapt: Llama's q,k,v,o,gate,up,down (default q,v), GPT-2's qkv,attproj,fc,fcproj "
                 "(default qkv)")
      ->each(given);
  cmd.add_flag("--lora-fp32-base", flags.fp32_base,
               "Convert a Hugging Face folder's BF16 base to fp32 in memory (default: it stays bf16, half the memory, "
               "the same results)")
      ->each(given);
}

std::unique_ptr<Model> lora_model(const std::string& model_spec, const LoraFlags& flags, std::uint64_t seed) {
  if (flags.rank == 0)
    throw std::invalid_argument("--lora-alpha, --lora-targets and --lora-fp32-base need --lora-rank");
  LoraConfig config{flags.rank, flags.alpha, {}};
  if (!flags.targets.empty()) config.targets = parse_lora_targets(flags.targets);
  std::unique_ptr<Model> base = make_model(model_spec, seed, /*frozen_bf16=*/!flags.fp32_base);
  if (config.targets.empty()) {  // PEFT's defaults
    const bool llama = dynamic_cast<const Llama*>(base.get()) != nullptr;
    config.targets = llama ? std::vector<std::string>{"q", "v"} : std::vector<std::string>{"qkv"};
  }
  return std::make_unique<LoraModel>(std::move(base), config, seed);
}

void add_merge_command(CLI::App& app) {
  struct Options {
    std::string model, adapters, out, format;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("merge", "Write a base model with LoRA adapters merged into its weights");
  cmd->add_option("--model", opt->model, "The base the adapters were trained on (model file, folder or config name)")
      ->required();
  cmd->add_option("--adapters", opt->adapters, "LoRA adapter file (a LoRA run's model.bin)")->required();
  cmd->add_option("--out", opt->out, "Where to write: a file (llmc) or a folder (hf)")->required();
  cmd->add_option("--format", opt->format, "llmc (llm.c model file) or hf (config.json + model.safetensors)")
      ->check(CLI::IsMember({"hf", "llmc"}))
      ->default_val("llmc");
  cmd->callback([opt] {
    namespace fs = std::filesystem;
    for (const std::string& input : {opt->model, opt->adapters}) {
      if (fs::exists(opt->out) && fs::exists(input) && fs::equivalent(opt->out, input)) {
        throw std::invalid_argument("--out " + opt->out + " is one of the inputs; write elsewhere");
      }
    }
    std::unique_ptr<Model> base = make_model(opt->model, 1);
    const LoraConfig config = read_lora_config(opt->adapters, *base);
    LoraModel adapted(std::move(base), config, 0);
    adapted.load_adapters(opt->adapters);
    const std::unique_ptr<Model> merged = adapted.release_merged();
    if (opt->format == "hf") {
      merged->save_hf_folder(opt->out, merged->params_memory());
    } else {
      merged->save_file(opt->out, merged->params_memory());
    }
    std::printf("wrote %s (%s merged into %s)\n", opt->out.c_str(), opt->adapters.c_str(), merged->describe().c_str());
  });
}

}  // namespace adjoint::cli
