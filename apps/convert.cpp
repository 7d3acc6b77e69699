// `adjoint convert`: a model in one format written in the other (or the same): llm.c's model
// files and Hugging Face folders, GPT-2 or Llama.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "adjoint/hf_checkpoint.hpp"
#include "commands.hpp"
#include "model_spec.hpp"

namespace adjoint::cli {

void add_convert_command(CLI::App& app) {
  struct Options {
    std::string model, out, format;
  };
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("convert", "Write a model as a Hugging Face folder or an llm.c model file");
  cmd->add_option("--model", opt->model, "Model file (GPT-2 or Llama 3), Hugging Face folder, or config name")
      ->required();
  cmd->add_option("--out", opt->out, "Where to write: a folder (hf) or a file (llmc)")->required();
  cmd->add_option("--format", opt->format,
                  "hf (config.json + model.safetensors, fp32) or llmc; default: the "
                  "format --model is not in")
      ->check(CLI::IsMember({"hf", "llmc"}));
  cmd->callback([opt] {
    namespace fs = std::filesystem;
    if (fs::exists(opt->out) && fs::exists(opt->model) && fs::equivalent(opt->out, opt->model)) {
      throw std::invalid_argument("--out " + opt->out + " is the model being converted; write elsewhere");
    }
    const std::string format = !opt->format.empty() ? opt->format : is_hf_folder(opt->model) ? "llmc" : "hf";
    auto model = make_model(opt->model, 1);
    if (format == "hf") {
      model->save_hf_folder(opt->out, model->params_memory());
    } else {
      model->save_file(opt->out, model->params_memory());
    }
    std::printf("wrote %s (%s, %s)\n", opt->out.c_str(), format == "hf" ? "Hugging Face folder" : "llm.c model file",
                model->describe().c_str());
  });
}

}  // namespace adjoint::cli
